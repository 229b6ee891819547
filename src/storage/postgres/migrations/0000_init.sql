CREATE TABLE "changes" (
	"revision" bigint PRIMARY KEY NOT NULL,
	"resource_id" bigint NOT NULL,
	"cluster" text COLLATE "C" NOT NULL,
	"group" text COLLATE "C" NOT NULL,
	"version" text COLLATE "C" NOT NULL,
	"resource" text COLLATE "C" NOT NULL,
	"namespace" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"type" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"time" bigint NOT NULL,
	"object" jsonb
);
--> statement-breakpoint
CREATE TABLE "cluster_status" (
	"cluster" text COLLATE "C" PRIMARY KEY NOT NULL,
	"spec" jsonb NOT NULL,
	"status" jsonb NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resource_labels" (
	"key" text COLLATE "C" NOT NULL,
	"value" text COLLATE "C" NOT NULL,
	"resource_id" bigint NOT NULL,
	CONSTRAINT "resource_labels_key_value_resource_id_pk" PRIMARY KEY("key","value","resource_id")
);
--> statement-breakpoint
CREATE TABLE "resource_types" (
	"cluster" text COLLATE "C" NOT NULL,
	"group" text COLLATE "C" NOT NULL,
	"version" text COLLATE "C" NOT NULL,
	"resource" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"namespaced" boolean NOT NULL,
	"count" bigint NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "resource_types_cluster_group_version_resource_pk" PRIMARY KEY("cluster","group","version","resource")
);
--> statement-breakpoint
CREATE TABLE "resources" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"cluster" text COLLATE "C" NOT NULL,
	"group" text COLLATE "C" NOT NULL,
	"version" text COLLATE "C" NOT NULL,
	"resource" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"namespace" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"uid" text COLLATE "C" NOT NULL,
	"owner_uid" text COLLATE "C" NOT NULL,
	"resource_version" text COLLATE "C" NOT NULL,
	"revision" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"synced_at" bigint NOT NULL,
	"size" bigint NOT NULL,
	"labels" jsonb NOT NULL,
	"object" jsonb NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "resources_key" ON "resources" USING btree ("group","version","resource","cluster","namespace","name");--> statement-breakpoint
CREATE INDEX "resources_namespace" ON "resources" USING btree ("group","version","resource","namespace","cluster","name");--> statement-breakpoint
CREATE INDEX "resources_name" ON "resources" USING btree ("name","cluster");--> statement-breakpoint
CREATE INDEX "resources_owner" ON "resources" USING btree ("cluster","owner_uid","uid");--> statement-breakpoint
CREATE INDEX "resources_created" ON "resources" USING btree ("group","version","resource","created_at");