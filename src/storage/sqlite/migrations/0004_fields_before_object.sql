-- `fields` moves before `object`. 0003 added it with ALTER TABLE, which appends: every field-label selector
-- (status.phase, spec.nodeName, …) then walked each row's ~4 KB object, overflow pages included, to reach it. SQLite
-- cannot reorder columns: the table is rebuilt (87 s for 1,000,000 pods on 2 cores; the WAL holds a copy until checkpointed).
CREATE TABLE `__new_resources` (
	`id` integer PRIMARY KEY NOT NULL,
	`cluster` text NOT NULL,
	`group` text NOT NULL,
	`version` text NOT NULL,
	`resource` text NOT NULL,
	`kind` text NOT NULL,
	`namespace` text NOT NULL,
	`name` text NOT NULL,
	`uid` text NOT NULL,
	`owner_uid` text NOT NULL,
	`resource_version` text NOT NULL,
	`revision` integer NOT NULL,
	`created_at` integer NOT NULL,
	`synced_at` integer NOT NULL,
	`size` integer NOT NULL,
	`labels` text NOT NULL,
	`fields` text,
	`object` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_resources` (`id`, `cluster`, `group`, `version`, `resource`, `kind`, `namespace`, `name`, `uid`, `owner_uid`, `resource_version`, `revision`, `created_at`, `synced_at`, `size`, `labels`, `fields`, `object`)
SELECT `id`, `cluster`, `group`, `version`, `resource`, `kind`, `namespace`, `name`, `uid`, `owner_uid`, `resource_version`, `revision`, `created_at`, `synced_at`, `size`, `labels`, `fields`, `object` FROM `resources`;
--> statement-breakpoint
DROP TABLE `resources`;
--> statement-breakpoint
ALTER TABLE `__new_resources` RENAME TO `resources`;
--> statement-breakpoint
CREATE UNIQUE INDEX `resources_key` ON `resources` (`group`,`version`,`resource`,`cluster`,`namespace`,`name`);
--> statement-breakpoint
CREATE INDEX `resources_namespace` ON `resources` (`group`,`version`,`resource`,`namespace`,`cluster`,`name`);
--> statement-breakpoint
CREATE INDEX `resources_name` ON `resources` (`name`,`cluster`);
--> statement-breakpoint
CREATE INDEX `resources_owner` ON `resources` (`cluster`,`owner_uid`,`uid`);
--> statement-breakpoint
CREATE INDEX `resources_created` ON `resources` (`group`,`version`,`resource`,`created_at`);
