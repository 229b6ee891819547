-- The values kube's field selectors read that a write can change (status.phase, spec.nodeName, …), beside the labels,
-- and what they were before a change-log entry: a watch from an old revision with such a field selector knows from
-- them which objects matched then. Rows and entries written before this migration have none.
ALTER TABLE `changes` ADD `prev_fields` text;--> statement-breakpoint
ALTER TABLE `resources` ADD `fields` text;
