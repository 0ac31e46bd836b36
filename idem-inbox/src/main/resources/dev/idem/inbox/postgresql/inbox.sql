-- idem: the PostgreSQL inbox statements; the shared ones are in ../common/inbox.sql.

-- name: inbox_purge
-- Expired processed and dropped rows, never a quarantined one; concurrent purges skip each other's rows.
-- params: limit
DELETE FROM idem_inbox WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idem_inbox
    WHERE expires_at <= {now_ms} AND state <> 2
    LIMIT ? FOR UPDATE SKIP LOCKED))
  AND expires_at <= {now_ms} AND state <> 2

-- name: inbox_purge_failures
-- Expired attempt counters (state 0), never a quarantined message.
-- params: limit
DELETE FROM idem_quarantine WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idem_quarantine
    WHERE expires_at <= {now_ms} AND state = 0
    LIMIT ? FOR UPDATE SKIP LOCKED))
  AND expires_at <= {now_ms} AND state = 0
