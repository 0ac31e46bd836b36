-- idem: the MariaDB dialect's own statements; the shared ones are in ../common/statements.sql.
-- MariaDB has no INSERT ... ON CONFLICT ... DO UPDATE ... WHERE, so a claim is three short steps
-- (see JdbcIdempotencyStore): claim inserts a new record or finds one; lookup answers a live record
-- without locking it (the replay fast path); claim_takeover_update takes over a released, expired or
-- abandoned one, atomically under the row lock that UPDATE takes.

-- name: now_ms
-- UTC_TIMESTAMP is the statement's start on the server's clock; the difference to the epoch is plain
-- arithmetic on two DATETIMEs, so the session's time_zone (and its DST) never enters.
TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000

-- name: new_token
TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))

-- name: greatest
GREATEST

-- name: claim
-- A new record, or nothing when one exists. IGNORE skips only what cannot fail here otherwise: every
-- value is validated before it is bound and fits its column. RETURNING names the same columns as the
-- common claim; no row back means the key exists: see lookup, then claim_takeover_update.
INSERT IGNORE INTO idem_record
    (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at)
VALUES (?, ?, ?, 0, {new_token}, 1, {now_ms} + ?, {now_ms} + ?, {now_ms})
RETURNING token, attempt, recovery_phase, recovery_state, NULL AS fingerprint, NULL AS status, NULL AS headers,
          NULL AS body, NULL AS expires_in

-- name: claim_many
-- The claim above for the concurrent callers of one coalesced commit (distinct keys, at most 64): new
-- records are inserted, existing keys are skipped and return no row; their callers go on with the
-- single claim's steps (lookup, then claim_takeover_update).
-- Columns: scope, idem_key, then the single claim's columns in its order.
INSERT IGNORE INTO idem_record
    (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at)
VALUES {rows}
RETURNING scope, idem_key, token, attempt, recovery_phase, recovery_state, NULL AS fingerprint, NULL AS status, NULL AS headers,
          NULL AS body, NULL AS expires_in

-- name: claim_takeover_update
-- The common claim_takeover as one conditional UPDATE: its WHERE is checked on the newest row version
-- under the row's exclusive lock, so of concurrent claimers exactly one matches. MariaDB applies SET
-- assignments left to right, each seeing the columns assigned before it: every assignment that reads
-- state or expires_at comes before those two are assigned.
-- params: retention_ms, retention_ms, fingerprint, lease_ms, scope, idem_key, fingerprint
UPDATE idem_record SET
    token          = token + 1,
    attempt        = CASE WHEN state = 0 AND expires_at > {now_ms} THEN attempt + 1 ELSE 1 END,
    created_at     = CASE WHEN state = 0 AND expires_at > {now_ms} THEN created_at ELSE {now_ms} END,
    recovery_phase = CASE WHEN state = 0 AND expires_at > {now_ms} THEN recovery_phase END,
    recovery_state = CASE WHEN state = 0 AND expires_at > {now_ms} THEN recovery_state END,
    expires_at     = CASE WHEN state = 0 AND expires_at > {now_ms} THEN GREATEST(expires_at, {now_ms} + ?) ELSE {now_ms} + ? END,
    state          = 0,
    fingerprint    = ?,
    lease_until    = {now_ms} + ?,
    status         = NULL,
    headers        = NULL,
    body           = NULL
WHERE scope = ? AND idem_key = ?
  AND (state = 2
       OR (expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms}))
       OR (state = 0 AND lease_until <= {now_ms} AND fingerprint = ?))

-- name: claim_taken
-- Read in the takeover's transaction, after its UPDATE: the new owner's token and recovery point.
SELECT token, attempt, recovery_phase, recovery_state FROM idem_record WHERE scope = ? AND idem_key = ?

-- name: token_held
-- After a token-conditional write reported 0 rows: whether the token still holds the record. A
-- connection opened with useAffectedRows=true reports rows changed, not rows matched, so a checkpoint
-- or renew that wrote the values the row already had reports 0 although the token is current.
SELECT 1 FROM idem_record WHERE scope = ? AND idem_key = ? AND token = ? AND state = 0

-- name: purge
-- Bounded: at most ? rows (the second parameter) from the expiry ? on (the first: where the last full
-- batch of this pass ended), oldest expiry first along the index; the deleted rows' expiries come back.
DELETE FROM idem_record
WHERE expires_at >= ? AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
ORDER BY expires_at
LIMIT ?
RETURNING expires_at

-- name: lock_migrations_session
-- A named lock, held by the session across the migration's statements and commits (MariaDB commits
-- DDL implicitly, so a transaction-scoped lock would not last); released by unlock_migrations_session.
-- Named per database and track (an MD5 keeps the name within GET_LOCK's 64 characters). Answers 1
-- when taken, 0 after waiting 60 s.
SELECT GET_LOCK(CONCAT('idem:', MD5(CONCAT(IFNULL(DATABASE(), ''), '/{track}'))), 60)

-- name: unlock_migrations_session
SELECT RELEASE_LOCK(CONCAT('idem:', MD5(CONCAT(IFNULL(DATABASE(), ''), '/{track}'))))

-- name: create_history
CREATE TABLE IF NOT EXISTS idem_schema_history (
    version     INT          NOT NULL PRIMARY KEY,
    description VARCHAR(255) NOT NULL,
    applied_at  BIGINT       NOT NULL
) ENGINE = InnoDB

-- name: transaction_has_work
-- 1 once the connection's transaction has run a statement that touched a table. The claim on a
-- caller's connection may roll that transaction back (to drop the duplicate check's shared lock, or
-- after InnoDB picked it as a deadlock victim), which would silently discard earlier work: so it must
-- be the transaction's first work, and this is how the store checks it.
SELECT @@in_transaction
