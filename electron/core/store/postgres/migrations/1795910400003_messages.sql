-- Up Migration
-- Sent and received messages: the stored record as JSON text (it carries what the network sent, which may
-- hold a NUL jsonb refuses), the network's encoding of the content apart (for retries), and whether a
-- received message was marked read.
CREATE TABLE messages (
  instance_id text NOT NULL,
  id text NOT NULL,
  stored_at bigint NOT NULL,
  direction text NOT NULL,
  read boolean NOT NULL DEFAULT false,
  record text NOT NULL,
  content bytea,
  PRIMARY KEY (instance_id, id)
);
CREATE INDEX messages_stored_at ON messages (stored_at);

-- Each message's newest delivery status, with its rank: statuses only move forward (failed always lands).
CREATE TABLE message_statuses (
  instance_id text NOT NULL,
  id text NOT NULL,
  status text NOT NULL,
  rank smallint NOT NULL,
  PRIMARY KEY (instance_id, id),
  FOREIGN KEY (instance_id, id) REFERENCES messages ON DELETE CASCADE
);

-- Downloaded media, beside its message (shared by every node; goes with it).
CREATE TABLE message_media (
  instance_id text NOT NULL,
  id text NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (instance_id, id),
  FOREIGN KEY (instance_id, id) REFERENCES messages ON DELETE CASCADE
);

-- Files uploaded for later sends, until they expire.
CREATE TABLE uploads (
  id text PRIMARY KEY,
  content_type text NOT NULL,
  data bytea NOT NULL,
  expires_at bigint NOT NULL
);

-- Down Migration
DROP TABLE uploads;
DROP TABLE message_media;
DROP TABLE message_statuses;
DROP TABLE messages;
