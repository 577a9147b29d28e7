-- Up Migration
-- Every instance's credentials (type 'creds') and Signal keys, each value encoded (and encrypted when the
-- app has a cipher) as in the embedded store.
CREATE TABLE auth_entries (
  instance_id text NOT NULL,
  type text NOT NULL,
  id text NOT NULL,
  value bytea NOT NULL,
  PRIMARY KEY (instance_id, type, id)
);

-- Down Migration
DROP TABLE auth_entries;
