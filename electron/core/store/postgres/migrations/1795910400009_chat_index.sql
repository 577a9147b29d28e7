-- Up Migration
-- The chat index, kept by a trigger in the statement that writes a message (so it never disagrees with the
-- messages, whichever statement or node wrote them): each message under each chat id it is found by, in time
-- order; each chat's counts and last message; each sender's newest details. chats, chat_messages and contacts
-- read these by range, never the messages. Chat ids compare byte by byte ("C", the order of the embedded
-- store's keys); message ids keep the collation of messages.id, so joins on it use its key.
CREATE TABLE message_chats (
  instance_id text NOT NULL,
  chat text COLLATE "C" NOT NULL,
  ts bigint NOT NULL,
  stored_at bigint NOT NULL,
  id text NOT NULL,
  -- The message's own chat (not one it is found in by the other id the network gave).
  own boolean NOT NULL,
  PRIMARY KEY (instance_id, chat, ts, stored_at, id)
);
CREATE INDEX message_chats_by_message ON message_chats (instance_id, id);

CREATE TABLE chat_summaries (
  instance_id text NOT NULL,
  chat text COLLATE "C" NOT NULL,
  last_ts bigint NOT NULL,
  last_stored_at bigint NOT NULL,
  last_id text NOT NULL,
  unread integer NOT NULL,
  messages integer NOT NULL,
  PRIMARY KEY (instance_id, chat)
);
CREATE INDEX chat_summaries_newest ON chat_summaries (instance_id, last_ts, last_stored_at, last_id);

CREATE TABLE message_contacts (
  instance_id text NOT NULL,
  chat text COLLATE "C" NOT NULL,
  phone text,
  lid text,
  push_name text,
  at bigint NOT NULL,
  messages integer NOT NULL,
  PRIMARY KEY (instance_id, chat)
);

-- A message's Unix seconds (stored as text), 0 when not a number.
CREATE FUNCTION linkdesk_seconds(t text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN t ~ '^[0-9]{1,18}$' THEN t::bigint ELSE 0 END
$$;

-- Counts one message into (sign 1) or out of (sign -1) the index.
CREATE FUNCTION linkdesk_count_message(r messages, sign integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_record json := r.record::json;
  v_message json := v_record->'message';
  v_key json := v_record->'networkKey';
  v_chat text := v_message->>'chat';
  v_ts bigint := linkdesk_seconds(v_message->>'timestamp');
  v_at bigint := v_ts;
  v_unread integer := CASE WHEN r.direction = 'in' AND NOT r.read THEN sign ELSE 0 END;
  v_sender text := v_message->>'sender';
  v_summary chat_summaries;
  v_contact message_contacts;
BEGIN
  IF sign = 1 THEN
    INSERT INTO message_chats (instance_id, chat, ts, stored_at, id, own)
    SELECT DISTINCT r.instance_id, c, v_ts, r.stored_at, r.id, c = v_chat
    FROM unnest(ARRAY[v_chat, v_key->>'chat', v_key->>'chatAlt']) AS c
    WHERE c IS NOT NULL AND c <> ''
    ON CONFLICT DO NOTHING;
    INSERT INTO chat_summaries AS s VALUES (r.instance_id, v_chat, v_ts, r.stored_at, r.id, v_unread, 1)
    ON CONFLICT (instance_id, chat) DO UPDATE SET
      unread = s.unread + EXCLUDED.unread,
      messages = s.messages + 1,
      last_ts = CASE WHEN (EXCLUDED.last_ts, EXCLUDED.last_stored_at, EXCLUDED.last_id)
        > (s.last_ts, s.last_stored_at, s.last_id) THEN EXCLUDED.last_ts ELSE s.last_ts END,
      last_stored_at = CASE WHEN (EXCLUDED.last_ts, EXCLUDED.last_stored_at, EXCLUDED.last_id)
        > (s.last_ts, s.last_stored_at, s.last_id) THEN EXCLUDED.last_stored_at ELSE s.last_stored_at END,
      last_id = CASE WHEN (EXCLUDED.last_ts, EXCLUDED.last_stored_at, EXCLUDED.last_id)
        > (s.last_ts, s.last_stored_at, s.last_id) THEN EXCLUDED.last_id ELSE s.last_id END;
  ELSE
    DELETE FROM message_chats WHERE instance_id = r.instance_id AND id = r.id;
    UPDATE chat_summaries SET unread = unread + v_unread, messages = messages - 1
    WHERE instance_id = r.instance_id AND chat = v_chat RETURNING * INTO v_summary;
    IF FOUND AND v_summary.messages <= 0 THEN
      DELETE FROM chat_summaries WHERE instance_id = r.instance_id AND chat = v_chat;
    ELSIF FOUND AND v_summary.last_id = r.id THEN
      UPDATE chat_summaries SET (last_ts, last_stored_at, last_id) = (
        SELECT ts, stored_at, id FROM message_chats
        WHERE instance_id = r.instance_id AND chat = v_chat AND own
        ORDER BY ts DESC, stored_at DESC, id DESC LIMIT 1)
      WHERE instance_id = r.instance_id AND chat = v_chat;
    END IF;
  END IF;

  IF (v_message->>'from_me')::boolean OR v_sender IS NULL THEN
    RETURN;
  END IF;
  IF sign = 1 THEN
    INSERT INTO message_contacts AS c VALUES (r.instance_id, v_sender, v_message->>'sender_phone',
      v_message->>'sender_lid', v_message->>'push_name', v_at, 1)
    ON CONFLICT (instance_id, chat) DO UPDATE SET
      phone = CASE WHEN EXCLUDED.at >= c.at THEN EXCLUDED.phone ELSE c.phone END,
      lid = CASE WHEN EXCLUDED.at >= c.at THEN EXCLUDED.lid ELSE c.lid END,
      push_name = CASE WHEN EXCLUDED.at >= c.at THEN coalesce(EXCLUDED.push_name, c.push_name)
        ELSE coalesce(c.push_name, EXCLUDED.push_name) END,
      at = greatest(EXCLUDED.at, c.at),
      messages = c.messages + 1;
  ELSE
    UPDATE message_contacts SET messages = messages - 1
    WHERE instance_id = r.instance_id AND chat = v_sender RETURNING * INTO v_contact;
    IF FOUND AND v_contact.messages <= 0 THEN
      DELETE FROM message_contacts WHERE instance_id = r.instance_id AND chat = v_sender;
    END IF;
  END IF;
END $$;

CREATE FUNCTION linkdesk_index_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Marked read: only the chat's unread count moves.
  IF TG_OP = 'UPDATE' AND OLD.record = NEW.record AND OLD.stored_at = NEW.stored_at
     AND OLD.direction = NEW.direction THEN
    IF OLD.read <> NEW.read AND NEW.direction = 'in' THEN
      UPDATE chat_summaries SET unread = unread + CASE WHEN NEW.read THEN -1 ELSE 1 END
      WHERE instance_id = NEW.instance_id AND chat = (NEW.record::json->'message'->>'chat');
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM linkdesk_count_message(OLD, -1);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM linkdesk_count_message(NEW, 1);
  END IF;
  RETURN NULL;
END $$;

-- Messages stored before this migration are indexed here, once.
SELECT linkdesk_count_message(m, 1) FROM messages m ORDER BY instance_id, stored_at;

CREATE TRIGGER messages_chat_index AFTER INSERT OR UPDATE OR DELETE ON messages
  FOR EACH ROW EXECUTE FUNCTION linkdesk_index_message();

-- Down Migration
DROP TRIGGER messages_chat_index ON messages;
DROP FUNCTION linkdesk_index_message();
DROP FUNCTION linkdesk_count_message(messages, integer);
DROP FUNCTION linkdesk_seconds(text);
DROP TABLE message_contacts;
DROP TABLE chat_summaries;
DROP TABLE message_chats;
