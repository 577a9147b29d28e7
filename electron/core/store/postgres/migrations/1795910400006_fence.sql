-- Up Migration
-- The check every write of an instance makes first, in its own transaction: each claim (instance, node, token)
-- must still hold (the token is current and the node's lease unexpired on this server's clock), and the rows
-- stay locked until the commit, so a takeover waits for a write in progress and then sees it. A claim that no
-- longer holds aborts the whole transaction with SQLSTATE LDL01.
CREATE FUNCTION linkdesk_fence(claims jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  claim record;
BEGIN
  FOR claim IN SELECT * FROM jsonb_to_recordset(claims) AS x(instance_id text, node_id text, token bigint) LOOP
    PERFORM 1 FROM instance_owner o JOIN nodes n ON n.id = o.node_id
      WHERE o.instance_id = claim.instance_id AND o.node_id = claim.node_id AND o.token = claim.token
        AND n.expires_at > now()
      FOR SHARE OF o FOR KEY SHARE OF n;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'node % no longer holds instance % (token %)', claim.node_id, claim.instance_id, claim.token
        USING ERRCODE = 'LDL01';
    END IF;
  END LOOP;
END $$;

-- What the nodes of one cluster share: the key a node presents when it forwards a request to a peer.
CREATE TABLE cluster_settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- Each instance's last status as its owner reported it, so any node can list it.
ALTER TABLE instance_owner ADD COLUMN status jsonb;

-- Down Migration
ALTER TABLE instance_owner DROP COLUMN status;
DROP TABLE cluster_settings;
DROP FUNCTION linkdesk_fence(jsonb);
