-- idem: the PostgreSQL dialect's own statements; the shared ones are in ../common/statements.sql.

-- name: now_ms
(extract(epoch from now()) * 1000)::bigint

-- name: new_token
(extract(epoch from clock_timestamp()) * 1000000)::bigint

-- name: greatest
greatest

-- name: purge
DELETE FROM idem_record WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idem_record
    WHERE expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
    LIMIT ? FOR UPDATE SKIP LOCKED))
  AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})

-- name: lock_migrations
-- Held to the end of the migration's transaction. Taken before the history table is created,
-- because CREATE TABLE IF NOT EXISTS races between sessions in PostgreSQL. {track} is the migrated
-- track's table (the record table for the store), so each track has its own lock.
SELECT pg_advisory_xact_lock(hashtext('{track} migrations'))

-- name: create_history
CREATE TABLE IF NOT EXISTS idem_schema_history (
    version     integer PRIMARY KEY,
    description text    NOT NULL,
    applied_at  bigint  NOT NULL
)
