-- Up Migration
-- Tokens, instances and added webhooks: each record whole, as JSON, under its id (the settings store reads
-- them all at start and writes whole records).
CREATE TABLE tokens (id text PRIMARY KEY, record jsonb NOT NULL);
CREATE TABLE instances (id text PRIMARY KEY, record jsonb NOT NULL);
CREATE TABLE webhooks (id text PRIMARY KEY, record jsonb NOT NULL);

-- Down Migration
DROP TABLE webhooks;
DROP TABLE instances;
DROP TABLE tokens;
