-- Objects and labels as `json` (the text as written) instead of `jsonb`: reading a page no longer renders every
-- object again, and an update can compare the labels text it wrote. One ALTER per table: one rewrite of each.
ALTER TABLE "changes" ALTER COLUMN "object" SET DATA TYPE json USING "object"::text::json;--> statement-breakpoint
ALTER TABLE "resources" ALTER COLUMN "labels" SET DATA TYPE json USING "labels"::text::json, ALTER COLUMN "object" SET DATA TYPE json USING "object"::text::json;
