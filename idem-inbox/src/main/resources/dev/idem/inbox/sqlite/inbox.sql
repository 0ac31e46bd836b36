-- idem: the SQLite inbox statements; the shared ones are in ../common/inbox.sql.

-- name: inbox_purge
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_inbox WHERE rowid IN (
    SELECT rowid FROM idem_inbox
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND state <> 2
    ORDER BY expires_at
    LIMIT ?)
RETURNING expires_at

-- name: inbox_purge_failures
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_quarantine WHERE rowid IN (
    SELECT rowid FROM idem_quarantine
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND state = 0
    ORDER BY expires_at
    LIMIT ?)
RETURNING expires_at
