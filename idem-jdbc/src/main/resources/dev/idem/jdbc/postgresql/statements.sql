-- idem: the PostgreSQL dialect's own statements; the shared ones are in ../common/statements.sql.

-- name: now_ms
(extract(epoch from now()) * 1000)::bigint

-- name: new_token
(extract(epoch from clock_timestamp()) * 1000000)::bigint

-- name: greatest
greatest

-- name: claim_insert
-- A fragment of claim and claim_many below, not a statement: a fresh record for each requested key of
-- "req", as the common claim inserts it; each statement adds which keys, and {claim_takeover}.
INSERT INTO idem_record AS r
    (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at)
SELECT scope, idem_key, fingerprint, 0, {new_token}, 1, {now_ms} + lease_ms, {now_ms} + retention_ms, {now_ms}

-- name: claim
-- The common claim with a replay fast path in the same statement and round trip: "done" reads a
-- completed, unexpired record (immutable until it expires); if there is one, nothing is inserted,
-- nothing is locked or written, and its response comes back (fingerprint not null: replay, or
-- mismatch if the fingerprint differs). A missing record never decides an insert here: that is
-- still the INSERT … ON CONFLICT below, exactly the common claim. No row back: the record is live
-- (in progress, or completed by a transaction that committed after this statement began): see lookup.
-- Columns: token, attempt, recovery_phase, recovery_state (acquired), then fingerprint, status,
-- headers, body, expires_in (completed; ms of life left on the database's clock).
WITH req (scope, idem_key, fingerprint, lease_ms, retention_ms) AS (
    VALUES (CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS bigint), CAST(? AS bigint))
), done AS (
    SELECT d.fingerprint, d.status, d.headers, d.body, d.expires_at - {now_ms} AS expires_in
    FROM idem_record d JOIN req ON d.scope = req.scope AND d.idem_key = req.idem_key
    WHERE d.state = 1 AND d.expires_at > {now_ms}
), claimed AS (
    {claim_insert}
    FROM req WHERE NOT EXISTS (SELECT 1 FROM done)
    {claim_takeover}
    RETURNING r.token, r.attempt, r.recovery_phase, r.recovery_state
)
SELECT token, attempt, recovery_phase, recovery_state,
       CAST(NULL AS text) AS fingerprint, CAST(NULL AS integer) AS status, CAST(NULL AS text) AS headers, CAST(NULL AS bytea) AS body,
       CAST(NULL AS bigint) AS expires_in
FROM claimed
UNION ALL
SELECT NULL, NULL, NULL, NULL, fingerprint, status, headers, body, expires_in FROM done

-- name: claim_many
-- The claim above for the concurrent callers of one coalesced commit (distinct keys, at most 64): each
-- row is decided exactly as the single claim decides it, the replay fast path per row. Rows go in in
-- key order, so that two batches over the same keys lock them in the same order. No row back for a
-- key: it is live, and its caller answers it with the single claim.
-- Columns: scope, idem_key, then the single claim's columns in its order.
WITH req (scope, idem_key, fingerprint, lease_ms, retention_ms) AS (
    VALUES {rows}
), done AS (
    SELECT d.scope, d.idem_key, d.fingerprint, d.status, d.headers, d.body, d.expires_at - {now_ms} AS expires_in
    FROM idem_record d JOIN req ON d.scope = req.scope AND d.idem_key = req.idem_key
    WHERE d.state = 1 AND d.expires_at > {now_ms}
), claimed AS (
    {claim_insert}
    FROM req WHERE NOT EXISTS (SELECT 1 FROM done WHERE done.scope = req.scope AND done.idem_key = req.idem_key)
    ORDER BY scope, idem_key
    {claim_takeover}
    RETURNING r.scope, r.idem_key, r.token, r.attempt, r.recovery_phase, r.recovery_state
)
SELECT scope, idem_key, token, attempt, recovery_phase, recovery_state,
       CAST(NULL AS text) AS fingerprint, CAST(NULL AS integer) AS status, CAST(NULL AS text) AS headers, CAST(NULL AS bytea) AS body,
       CAST(NULL AS bigint) AS expires_in
FROM claimed
UNION ALL
SELECT scope, idem_key, NULL, NULL, NULL, NULL, fingerprint, status, headers, body, expires_in FROM done

-- name: claim_many_row
-- params per row: scope, idem_key, fingerprint, lease_ms, retention_ms
(CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS bigint), CAST(? AS bigint))

-- name: purge
-- At most ? rows (the second parameter) from the expiry ? on (the first: where the last full batch of
-- this pass ended), oldest first along the index; the deleted rows' expiries come back. Starting
-- where the last batch ended matters here: the deleted rows' index entries stay until a vacuum, and a
-- batch that started at the bottom of the index would walk all of them again.
DELETE FROM idem_record WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idem_record
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
    ORDER BY expires_at
    LIMIT ? FOR UPDATE SKIP LOCKED))
  AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
RETURNING expires_at

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
