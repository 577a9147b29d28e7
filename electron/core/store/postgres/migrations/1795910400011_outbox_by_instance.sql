-- Up Migration
-- The outbox queues of one instance, found by the instance id (its own webhook's queue is the id; an added
-- webhook's queue in a cluster is `webhook:<webhook id>@<instance id>`): a node adopting an instance reads
-- that instance's queues, not every queue of the outbox.
CREATE INDEX webhook_outbox_by_instance ON webhook_outbox
  ((CASE WHEN queue LIKE 'webhook:%' THEN split_part(queue, '@', 2) ELSE queue END));

-- Down Migration
DROP INDEX webhook_outbox_by_instance;
