-- The labels before a change-log entry that changed or removed them: a watch from an old revision with a label
-- selector knows from it which objects matched then (entries written before this migration have none).
ALTER TABLE `changes` ADD `prev_labels` text;
