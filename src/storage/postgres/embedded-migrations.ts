// GENERATED from src/storage/postgres/migrations by test/storage/embedded-migrations.test.ts (vitest -u); do not edit by hand.
import type { EmbeddedMigration } from '../schema-version.js';

export const migrations: readonly EmbeddedMigration[] = [
  {
    tag: "0000_init",
    when: 1795997063164,
    breakpoints: true,
    sql: "CREATE TABLE \"changes\" (\n\t\"revision\" bigint PRIMARY KEY NOT NULL,\n\t\"resource_id\" bigint NOT NULL,\n\t\"cluster\" text COLLATE \"C\" NOT NULL,\n\t\"group\" text COLLATE \"C\" NOT NULL,\n\t\"version\" text COLLATE \"C\" NOT NULL,\n\t\"resource\" text COLLATE \"C\" NOT NULL,\n\t\"namespace\" text COLLATE \"C\" NOT NULL,\n\t\"name\" text COLLATE \"C\" NOT NULL,\n\t\"type\" text COLLATE \"C\" NOT NULL,\n\t\"created_at\" bigint NOT NULL,\n\t\"time\" bigint NOT NULL,\n\t\"object\" jsonb\n);\n--> statement-breakpoint\nCREATE TABLE \"cluster_status\" (\n\t\"cluster\" text COLLATE \"C\" PRIMARY KEY NOT NULL,\n\t\"spec\" jsonb NOT NULL,\n\t\"status\" jsonb NOT NULL,\n\t\"updated_at\" text NOT NULL\n);\n--> statement-breakpoint\nCREATE TABLE \"meta\" (\n\t\"key\" text PRIMARY KEY NOT NULL,\n\t\"value\" text NOT NULL\n);\n--> statement-breakpoint\nCREATE TABLE \"resource_labels\" (\n\t\"key\" text COLLATE \"C\" NOT NULL,\n\t\"value\" text COLLATE \"C\" NOT NULL,\n\t\"resource_id\" bigint NOT NULL,\n\tCONSTRAINT \"resource_labels_key_value_resource_id_pk\" PRIMARY KEY(\"key\",\"value\",\"resource_id\")\n);\n--> statement-breakpoint\nCREATE TABLE \"resource_types\" (\n\t\"cluster\" text COLLATE \"C\" NOT NULL,\n\t\"group\" text COLLATE \"C\" NOT NULL,\n\t\"version\" text COLLATE \"C\" NOT NULL,\n\t\"resource\" text COLLATE \"C\" NOT NULL,\n\t\"kind\" text COLLATE \"C\" NOT NULL,\n\t\"namespaced\" boolean NOT NULL,\n\t\"count\" bigint NOT NULL,\n\t\"bytes\" bigint NOT NULL,\n\tCONSTRAINT \"resource_types_cluster_group_version_resource_pk\" PRIMARY KEY(\"cluster\",\"group\",\"version\",\"resource\")\n);\n--> statement-breakpoint\nCREATE TABLE \"resources\" (\n\t\"id\" bigserial PRIMARY KEY NOT NULL,\n\t\"cluster\" text COLLATE \"C\" NOT NULL,\n\t\"group\" text COLLATE \"C\" NOT NULL,\n\t\"version\" text COLLATE \"C\" NOT NULL,\n\t\"resource\" text COLLATE \"C\" NOT NULL,\n\t\"kind\" text COLLATE \"C\" NOT NULL,\n\t\"namespace\" text COLLATE \"C\" NOT NULL,\n\t\"name\" text COLLATE \"C\" NOT NULL,\n\t\"uid\" text COLLATE \"C\" NOT NULL,\n\t\"owner_uid\" text COLLATE \"C\" NOT NULL,\n\t\"resource_version\" text COLLATE \"C\" NOT NULL,\n\t\"revision\" bigint NOT NULL,\n\t\"created_at\" bigint NOT NULL,\n\t\"synced_at\" bigint NOT NULL,\n\t\"size\" bigint NOT NULL,\n\t\"labels\" jsonb NOT NULL,\n\t\"object\" jsonb NOT NULL\n);\n--> statement-breakpoint\nCREATE UNIQUE INDEX \"resources_key\" ON \"resources\" USING btree (\"group\",\"version\",\"resource\",\"cluster\",\"namespace\",\"name\");--> statement-breakpoint\nCREATE INDEX \"resources_namespace\" ON \"resources\" USING btree (\"group\",\"version\",\"resource\",\"namespace\",\"cluster\",\"name\");--> statement-breakpoint\nCREATE INDEX \"resources_name\" ON \"resources\" USING btree (\"name\",\"cluster\");--> statement-breakpoint\nCREATE INDEX \"resources_owner\" ON \"resources\" USING btree (\"cluster\",\"owner_uid\",\"uid\");--> statement-breakpoint\nCREATE INDEX \"resources_created\" ON \"resources\" USING btree (\"group\",\"version\",\"resource\",\"created_at\");",
  },
  {
    tag: "0001_event_involved_uid",
    when: 1796026489435,
    breakpoints: true,
    sql: "-- A core/v1 Event keeps its involvedObject's uid in owner_uid (inject-events and owner search read it through\n-- resources_owner); Events written before this migration get it here.\nUPDATE \"resources\" SET \"owner_uid\" = coalesce(\"object\" -> 'involvedObject' ->> 'uid', '') WHERE \"group\" = '' AND \"resource\" = 'events' AND \"owner_uid\" = '';\n",
  },
  {
    tag: "0002_object_json",
    when: 1796072906985,
    breakpoints: true,
    sql: "-- Objects and labels as `json` (the text as written) instead of `jsonb`: reading a page no longer renders every\n-- object again, and an update can compare the labels text it wrote. One ALTER per table: one rewrite of each.\nALTER TABLE \"changes\" ALTER COLUMN \"object\" SET DATA TYPE json USING \"object\"::text::json;--> statement-breakpoint\nALTER TABLE \"resources\" ALTER COLUMN \"labels\" SET DATA TYPE json USING \"labels\"::text::json, ALTER COLUMN \"object\" SET DATA TYPE json USING \"object\"::text::json;\n",
  },
  {
    tag: "0003_change_prev_labels",
    when: 1796461181808,
    breakpoints: true,
    sql: "-- The labels before a change-log entry that changed or removed them: a watch from an old revision with a label\n-- selector knows from it which objects matched then (entries written before this migration have none).\nALTER TABLE \"changes\" ADD COLUMN \"prev_labels\" json;\n",
  },
  {
    tag: "0004_selectable_fields",
    when: 1796480570583,
    breakpoints: true,
    sql: "-- The values kube's field selectors read that a write can change (status.phase, spec.nodeName, …), beside the labels,\n-- and what they were before a change-log entry: a watch from an old revision with such a field selector knows from\n-- them which objects matched then. Rows and entries written before this migration have none.\nALTER TABLE \"changes\" ADD COLUMN \"prev_fields\" json;--> statement-breakpoint\nALTER TABLE \"resources\" ADD COLUMN \"fields\" json;\n",
  },
  {
    tag: "0005_object_lz4",
    when: 1796587696051,
    breakpoints: true,
    sql: "-- Objects are compressed with lz4 instead of pglz where the server has it (PostgreSQL 14+, built with lz4, as the\n-- distributions' packages and the official images are): a 4 KB pod compresses and decompresses several times faster,\n-- so writes and page reads cost the server less, for ~25 % more space. It applies to values written from now on; rows\n-- already stored keep pglz until they are next written, and both read alike, so nothing is rewritten here. A server\n-- without lz4 keeps pglz.\nDO $$\nBEGIN\n  IF current_setting('server_version_num')::int >= 140000 THEN\n    EXECUTE 'ALTER TABLE \"resources\" ALTER COLUMN \"object\" SET COMPRESSION lz4';\n    EXECUTE 'ALTER TABLE \"changes\" ALTER COLUMN \"object\" SET COMPRESSION lz4';\n  END IF;\nEXCEPTION WHEN feature_not_supported THEN\n  NULL;\nEND\n$$;\n",
  },
];
