-- idem: the SQLite inbox statements; the shared ones are in ../common/inbox.sql.

-- name: inbox_purge
-- params: limit
DELETE FROM idem_inbox WHERE rowid IN (
    SELECT rowid FROM idem_inbox
    WHERE expires_at <= {now_ms} AND state <> 2
    LIMIT ?)

-- name: inbox_purge_failures
-- params: limit
DELETE FROM idem_quarantine WHERE rowid IN (
    SELECT rowid FROM idem_quarantine
    WHERE expires_at <= {now_ms} AND state = 0
    LIMIT ?)
