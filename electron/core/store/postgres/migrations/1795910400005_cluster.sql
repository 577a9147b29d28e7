-- Up Migration
-- The nodes sharing this database: each one's internal address and its lease, on PostgreSQL's clock.
CREATE TABLE nodes (
  id text PRIMARY KEY,
  address text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

-- Which node runs each instance, and the fencing token that node must present: incremented at every
-- takeover and release, so a node that lost an instance can no longer write for it.
CREATE TABLE instance_owner (
  instance_id text PRIMARY KEY,
  node_id text NOT NULL,
  token bigint NOT NULL
);
CREATE INDEX instance_owner_by_node ON instance_owner (node_id);

-- Down Migration
DROP TABLE instance_owner;
DROP TABLE nodes;
