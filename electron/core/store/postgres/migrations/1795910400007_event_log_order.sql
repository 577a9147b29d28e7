-- Up Migration
-- The transaction that wrote each event. Nodes following the shared log (the live stream of a cluster) read it
-- in (tx, id) order and only below the oldest transaction still running, so an event committed late by
-- another node is never passed over. Events written before this migration share its transaction id.
ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_by_tx ON events (tx, id);

-- Down Migration
DROP INDEX events_by_tx;
ALTER TABLE events DROP COLUMN tx;
