-- A core/v1 Event keeps its involvedObject's uid in owner_uid (inject-events and owner search read it through
-- resources_owner); Events written before this migration get it here.
UPDATE "resources" SET "owner_uid" = coalesce("object" -> 'involvedObject' ->> 'uid', '') WHERE "group" = '' AND "resource" = 'events' AND "owner_uid" = '';
