-- Up Migration
-- linkdesk_fence for a single statement: true when every claim holds (raising LDL01 otherwise), for a WHERE
-- clause, so a one-statement write of an instance is fenced in its own implicit transaction.
CREATE FUNCTION linkdesk_holds(claims jsonb) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM linkdesk_fence(claims);
  RETURN true;
END $$;

-- Down Migration
DROP FUNCTION linkdesk_holds(jsonb);
