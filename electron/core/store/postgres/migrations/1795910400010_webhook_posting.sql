-- Up Migration
-- A webhook post under way, marked on its outbox entry right before the POST (by whichever node posts it) and
-- cleared when the entry's retry is saved (its removal takes the mark with it): an entry found marked by the
-- next post was under way when its node stopped, so that post is counted as a re-post.
ALTER TABLE webhook_outbox ADD COLUMN posting boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE webhook_outbox DROP COLUMN posting;
