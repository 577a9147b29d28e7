-- Up Migration
-- The idempotency ledger: per instance and key, the message id recorded before a send and its answer after.
CREATE TABLE send_idempotency (
  instance_id text NOT NULL,
  key text NOT NULL,
  entry jsonb NOT NULL,
  at bigint NOT NULL,
  PRIMARY KEY (instance_id, key)
);
CREATE INDEX send_idempotency_at ON send_idempotency (at);

-- Each voter's latest vote on each poll: the option hashes it carried (base64).
CREATE TABLE poll_votes (
  instance_id text NOT NULL,
  poll_id text NOT NULL,
  voter text NOT NULL,
  hashes text[] NOT NULL,
  at bigint NOT NULL,
  PRIMARY KEY (instance_id, poll_id, voter)
);

-- Down Migration
DROP TABLE poll_votes;
DROP TABLE send_idempotency;
