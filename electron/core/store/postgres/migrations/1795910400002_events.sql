-- Up Migration
-- The event log: each event's envelope, the token owning its instance, and its delivery summary (with its
-- status apart, for redeliver_failed and the retention sweep). Envelopes, summaries and attempts are JSON
-- text, not jsonb: they carry what the network and receivers sent, which may hold a NUL jsonb refuses.
CREATE TABLE events (
  id text PRIMARY KEY,
  instance_id text NOT NULL,
  event text NOT NULL,
  owner text,
  envelope text NOT NULL,
  delivery text NOT NULL,
  status text NOT NULL
);
CREATE INDEX events_by_instance ON events (instance_id, id);

-- Which event announced each network message: one event per message id, enforced here.
CREATE TABLE event_messages (
  instance_id text NOT NULL,
  message_id text NOT NULL,
  event_id text NOT NULL,
  PRIMARY KEY (instance_id, message_id)
);
CREATE INDEX event_messages_by_event ON event_messages (event_id);

-- The webhook outbox: one queue per instance's webhook and per added webhook, in the order of queue_id (ids
-- from the node's strictly increasing id sequence).
CREATE TABLE webhook_outbox (
  queue text NOT NULL,
  queue_id text NOT NULL,
  entry jsonb NOT NULL,
  PRIMARY KEY (queue, queue_id)
);

-- Every delivery attempt.
CREATE TABLE delivery_attempts (
  id text PRIMARY KEY,
  instance_id text NOT NULL,
  event_id text NOT NULL,
  webhook_id text,
  outcome text NOT NULL,
  owner text,
  attempt text NOT NULL
);
CREATE INDEX delivery_attempts_by_instance ON delivery_attempts (instance_id, id);
CREATE INDEX delivery_attempts_by_event ON delivery_attempts (event_id, id);

-- Down Migration
DROP TABLE delivery_attempts;
DROP TABLE webhook_outbox;
DROP TABLE event_messages;
DROP TABLE events;
