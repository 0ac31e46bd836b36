-- idem: the PostgreSQL inbox statements; the shared ones are in ../common/inbox.sql.

-- name: inbox_claim
-- The shared claim with its ids bound as one array instead of a VALUES row each: the statement text
-- and its three parameters are the same for every batch size, so pgjdbc prepares it once on the
-- server and reuses the plan for a batch of 1 or of 500 (a VALUES list is a new statement per size,
-- with three parameters a row). The ids come sorted; unnest keeps the array's order (the ordinality
-- makes that explicit), so overlapping batches take their row locks in one global order.
-- The array travels as one text of the ids joined by line feeds, split here: a message id cannot
-- hold a control character. At 500 ids, joining costs the JVM a quarter of pgjdbc's createArrayOf
-- (which quotes and escapes every element), and string_to_array PostgreSQL under half of array_in.
-- params: consumer, retention_ms, message_ids (text, joined by chr(10))
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT ?, m.message_id, 1, {now_ms}, {now_ms} + ?
FROM unnest(string_to_array(CAST(? AS text), chr(10))) WITH ORDINALITY AS m(message_id, n)
ORDER BY m.n
ON CONFLICT (consumer, message_id) DO NOTHING
RETURNING message_id

-- name: inbox_purge
-- Expired processed and dropped rows, never a quarantined one; concurrent purges skip each other's rows.
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_inbox WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idem_inbox
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND state <> 2
    ORDER BY expires_at
    LIMIT ? FOR UPDATE SKIP LOCKED))
  AND expires_at <= {now_ms} AND state <> 2
RETURNING expires_at

-- name: inbox_purge_failures
-- Expired attempt counters (state 0), never a quarantined message.
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_quarantine WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idem_quarantine
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND state = 0
    ORDER BY expires_at
    LIMIT ? FOR UPDATE SKIP LOCKED))
  AND expires_at <= {now_ms} AND state = 0
RETURNING expires_at
