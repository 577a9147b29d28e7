-- Up Migration
-- Each settings record's version, drawn from one sequence at every write: a node re-reads only the records
-- whose version differs from its copy's (after a lost notification), never a whole kind.
CREATE SEQUENCE linkdesk_settings_version;
ALTER TABLE tokens ADD COLUMN version bigint NOT NULL DEFAULT nextval('linkdesk_settings_version');
ALTER TABLE instances ADD COLUMN version bigint NOT NULL DEFAULT nextval('linkdesk_settings_version');
ALTER TABLE webhooks ADD COLUMN version bigint NOT NULL DEFAULT nextval('linkdesk_settings_version');

-- Down Migration
ALTER TABLE webhooks DROP COLUMN version;
ALTER TABLE instances DROP COLUMN version;
ALTER TABLE tokens DROP COLUMN version;
DROP SEQUENCE linkdesk_settings_version;
