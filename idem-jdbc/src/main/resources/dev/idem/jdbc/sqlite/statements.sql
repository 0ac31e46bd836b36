-- idem: the SQLite dialect's own statements; the shared ones are in ../common/statements.sql.

-- name: now_ms
CAST(unixepoch('subsec') * 1000 AS INTEGER)

-- name: new_token
CAST(unixepoch('subsec') * 1000000 AS INTEGER)

-- name: greatest
max

-- name: purge
-- At most ? rows (the second parameter) from the expiry ? on (the first: where the last full batch of
-- this pass ended), oldest first; the deleted rows' expiries come back.
DELETE FROM idem_record WHERE rowid IN (
    SELECT rowid FROM idem_record
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
    ORDER BY expires_at
    LIMIT ?)
RETURNING expires_at

-- name: lock_history
-- Run after create_history in the migration's transaction: a write, even one that changes nothing,
-- takes SQLite's write lock until the transaction ends.
UPDATE idem_schema_history SET version = version WHERE 0

-- name: create_history
CREATE TABLE IF NOT EXISTS idem_schema_history (
    version     INTEGER PRIMARY KEY,
    description TEXT    NOT NULL,
    applied_at  INTEGER NOT NULL
)

-- name: renew_many_lock
-- SQLite has no row locks (one writer at a time): the renewal's transaction reads the records. A
-- row value's IN list must be a subquery here, hence VALUES.
-- params per row: scope, idem_key
SELECT scope, idem_key, token FROM idem_record
WHERE state = 0 AND (scope, idem_key) IN (VALUES {rows})

-- name: renew_many_states
-- params per row: scope, idem_key
SELECT scope, idem_key, token FROM idem_record
WHERE state = 0 AND (scope, idem_key) IN (VALUES {rows})

