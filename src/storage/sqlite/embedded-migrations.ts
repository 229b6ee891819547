// GENERATED from src/storage/sqlite/migrations by test/storage/embedded-migrations.test.ts (vitest -u); do not edit by hand.
import type { EmbeddedMigration } from '../schema-version.js';

export const migrations: readonly EmbeddedMigration[] = [
  {
    tag: "0000_init",
    when: 1795997060878,
    breakpoints: true,
    sql: "CREATE TABLE `changes` (\n\t`revision` integer PRIMARY KEY NOT NULL,\n\t`resource_id` integer NOT NULL,\n\t`cluster` text NOT NULL,\n\t`group` text NOT NULL,\n\t`version` text NOT NULL,\n\t`resource` text NOT NULL,\n\t`namespace` text NOT NULL,\n\t`name` text NOT NULL,\n\t`type` text NOT NULL,\n\t`created_at` integer NOT NULL,\n\t`time` integer NOT NULL,\n\t`object` text\n);\n--> statement-breakpoint\nCREATE TABLE `cluster_status` (\n\t`cluster` text PRIMARY KEY NOT NULL,\n\t`spec` text NOT NULL,\n\t`status` text NOT NULL,\n\t`updated_at` text NOT NULL\n);\n--> statement-breakpoint\nCREATE TABLE `meta` (\n\t`key` text PRIMARY KEY NOT NULL,\n\t`value` text NOT NULL\n);\n--> statement-breakpoint\nCREATE TABLE `resource_labels` (\n\t`key` text NOT NULL,\n\t`value` text NOT NULL,\n\t`resource_id` integer NOT NULL,\n\tPRIMARY KEY(`key`, `value`, `resource_id`)\n) WITHOUT ROWID;\n--> statement-breakpoint\nCREATE TABLE `resource_types` (\n\t`cluster` text NOT NULL,\n\t`group` text NOT NULL,\n\t`version` text NOT NULL,\n\t`resource` text NOT NULL,\n\t`kind` text NOT NULL,\n\t`namespaced` integer NOT NULL,\n\t`count` integer NOT NULL,\n\t`bytes` integer NOT NULL,\n\tPRIMARY KEY(`cluster`, `group`, `version`, `resource`)\n);\n--> statement-breakpoint\nCREATE TABLE `resources` (\n\t`id` integer PRIMARY KEY NOT NULL,\n\t`cluster` text NOT NULL,\n\t`group` text NOT NULL,\n\t`version` text NOT NULL,\n\t`resource` text NOT NULL,\n\t`kind` text NOT NULL,\n\t`namespace` text NOT NULL,\n\t`name` text NOT NULL,\n\t`uid` text NOT NULL,\n\t`owner_uid` text NOT NULL,\n\t`resource_version` text NOT NULL,\n\t`revision` integer NOT NULL,\n\t`created_at` integer NOT NULL,\n\t`synced_at` integer NOT NULL,\n\t`size` integer NOT NULL,\n\t`labels` text NOT NULL,\n\t`object` text NOT NULL\n);\n--> statement-breakpoint\nCREATE UNIQUE INDEX `resources_key` ON `resources` (`group`,`version`,`resource`,`cluster`,`namespace`,`name`);--> statement-breakpoint\nCREATE INDEX `resources_namespace` ON `resources` (`group`,`version`,`resource`,`namespace`,`cluster`,`name`);--> statement-breakpoint\nCREATE INDEX `resources_name` ON `resources` (`name`,`cluster`);--> statement-breakpoint\nCREATE INDEX `resources_owner` ON `resources` (`cluster`,`owner_uid`,`uid`);--> statement-breakpoint\nCREATE INDEX `resources_created` ON `resources` (`group`,`version`,`resource`,`created_at`);",
  },
  {
    tag: "0001_event_involved_uid",
    when: 1796026488182,
    breakpoints: true,
    sql: "-- A core/v1 Event keeps its involvedObject's uid in owner_uid (inject-events and owner search read it through\n-- resources_owner); Events written before this migration get it here.\nUPDATE `resources` SET `owner_uid` = coalesce(json_extract(`object`, '$.involvedObject.uid'), '') WHERE `group` = '' AND `resource` = 'events' AND `owner_uid` = '';\n",
  },
  {
    tag: "0002_change_prev_labels",
    when: 1796461180639,
    breakpoints: true,
    sql: "-- The labels before a change-log entry that changed or removed them: a watch from an old revision with a label\n-- selector knows from it which objects matched then (entries written before this migration have none).\nALTER TABLE `changes` ADD `prev_labels` text;\n",
  },
  {
    tag: "0003_selectable_fields",
    when: 1796480569480,
    breakpoints: true,
    sql: "-- The values kube's field selectors read that a write can change (status.phase, spec.nodeName, …), beside the labels,\n-- and what they were before a change-log entry: a watch from an old revision with such a field selector knows from\n-- them which objects matched then. Rows and entries written before this migration have none.\nALTER TABLE `changes` ADD `prev_fields` text;--> statement-breakpoint\nALTER TABLE `resources` ADD `fields` text;\n",
  },
  {
    tag: "0004_fields_before_object",
    when: 1796509877116,
    breakpoints: true,
    sql: "-- `fields` moves before `object`. 0003 added it with ALTER TABLE, which appends: every field-label selector\n-- (status.phase, spec.nodeName, …) then walked each row's ~4 KB object, overflow pages included, to reach it. SQLite\n-- cannot reorder columns: the table is rebuilt (87 s for 1,000,000 pods on 2 cores; the WAL holds a copy until checkpointed).\nCREATE TABLE `__new_resources` (\n\t`id` integer PRIMARY KEY NOT NULL,\n\t`cluster` text NOT NULL,\n\t`group` text NOT NULL,\n\t`version` text NOT NULL,\n\t`resource` text NOT NULL,\n\t`kind` text NOT NULL,\n\t`namespace` text NOT NULL,\n\t`name` text NOT NULL,\n\t`uid` text NOT NULL,\n\t`owner_uid` text NOT NULL,\n\t`resource_version` text NOT NULL,\n\t`revision` integer NOT NULL,\n\t`created_at` integer NOT NULL,\n\t`synced_at` integer NOT NULL,\n\t`size` integer NOT NULL,\n\t`labels` text NOT NULL,\n\t`fields` text,\n\t`object` text NOT NULL\n);\n--> statement-breakpoint\nINSERT INTO `__new_resources` (`id`, `cluster`, `group`, `version`, `resource`, `kind`, `namespace`, `name`, `uid`, `owner_uid`, `resource_version`, `revision`, `created_at`, `synced_at`, `size`, `labels`, `fields`, `object`)\nSELECT `id`, `cluster`, `group`, `version`, `resource`, `kind`, `namespace`, `name`, `uid`, `owner_uid`, `resource_version`, `revision`, `created_at`, `synced_at`, `size`, `labels`, `fields`, `object` FROM `resources`;\n--> statement-breakpoint\nDROP TABLE `resources`;\n--> statement-breakpoint\nALTER TABLE `__new_resources` RENAME TO `resources`;\n--> statement-breakpoint\nCREATE UNIQUE INDEX `resources_key` ON `resources` (`group`,`version`,`resource`,`cluster`,`namespace`,`name`);\n--> statement-breakpoint\nCREATE INDEX `resources_namespace` ON `resources` (`group`,`version`,`resource`,`namespace`,`cluster`,`name`);\n--> statement-breakpoint\nCREATE INDEX `resources_name` ON `resources` (`name`,`cluster`);\n--> statement-breakpoint\nCREATE INDEX `resources_owner` ON `resources` (`cluster`,`owner_uid`,`uid`);\n--> statement-breakpoint\nCREATE INDEX `resources_created` ON `resources` (`group`,`version`,`resource`,`created_at`);\n",
  },
];
