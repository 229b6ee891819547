CREATE TABLE `changes` (
	`revision` integer PRIMARY KEY NOT NULL,
	`resource_id` integer NOT NULL,
	`cluster` text NOT NULL,
	`group` text NOT NULL,
	`version` text NOT NULL,
	`resource` text NOT NULL,
	`namespace` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`created_at` integer NOT NULL,
	`time` integer NOT NULL,
	`object` text
);
--> statement-breakpoint
CREATE TABLE `cluster_status` (
	`cluster` text PRIMARY KEY NOT NULL,
	`spec` text NOT NULL,
	`status` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `resource_labels` (
	`key` text NOT NULL,
	`value` text NOT NULL,
	`resource_id` integer NOT NULL,
	PRIMARY KEY(`key`, `value`, `resource_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `resource_types` (
	`cluster` text NOT NULL,
	`group` text NOT NULL,
	`version` text NOT NULL,
	`resource` text NOT NULL,
	`kind` text NOT NULL,
	`namespaced` integer NOT NULL,
	`count` integer NOT NULL,
	`bytes` integer NOT NULL,
	PRIMARY KEY(`cluster`, `group`, `version`, `resource`)
);
--> statement-breakpoint
CREATE TABLE `resources` (
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
	`object` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resources_key` ON `resources` (`group`,`version`,`resource`,`cluster`,`namespace`,`name`);--> statement-breakpoint
CREATE INDEX `resources_namespace` ON `resources` (`group`,`version`,`resource`,`namespace`,`cluster`,`name`);--> statement-breakpoint
CREATE INDEX `resources_name` ON `resources` (`name`,`cluster`);--> statement-breakpoint
CREATE INDEX `resources_owner` ON `resources` (`cluster`,`owner_uid`,`uid`);--> statement-breakpoint
CREATE INDEX `resources_created` ON `resources` (`group`,`version`,`resource`,`created_at`);