-- idem: statements every dialect shares unless its own statements.sql overrides one by name.
-- Placeholders, filled from the dialect's own statements of the same name: {now_ms} (the database
-- clock in epoch milliseconds), {new_token} (a fresh record's first fencing token, from the clock in
-- microseconds) and {greatest} (the larger of two values); {claim_takeover} is the fragment below.

-- name: claim_takeover
-- A fragment of every dialect's claim, not a statement: when an INSERT of a claim meets an existing
-- record, take it only if it is released, expired, or in progress with its lease over and the same
-- fingerprint (a takeover keeps the recovery point and counts an attempt).
ON CONFLICT (scope, idem_key) DO UPDATE SET
    token          = r.token + 1,
    attempt        = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.attempt + 1 ELSE 1 END,
    fingerprint    = excluded.fingerprint,
    state          = 0,
    lease_until    = excluded.lease_until,
    expires_at     = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN {greatest}(r.expires_at, excluded.expires_at) ELSE excluded.expires_at END,
    created_at     = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.created_at ELSE excluded.created_at END,
    recovery_phase = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.recovery_phase END,
    recovery_state = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.recovery_state END,
    status         = NULL,
    headers        = NULL,
    body           = NULL
WHERE r.state = 2
   OR (r.expires_at <= {now_ms} AND (r.state <> 0 OR r.lease_until <= {now_ms}))
   OR (r.state = 0 AND r.lease_until <= {now_ms} AND r.fingerprint = excluded.fingerprint)

-- name: claim
-- One statement acquires a new, released or expired record, or takes over an in-progress one whose
-- lease is over (same fingerprint only). No row back means the record is live: see lookup.
-- Columns: token, attempt, recovery_phase, recovery_state; then fingerprint, status, headers, body,
-- expires_in (ms of life left), which a dialect's claim fills when it answers a completed record in
-- the same statement (PostgreSQL's does); here they are always null.
INSERT INTO idem_record AS r
    (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at)
VALUES (?, ?, ?, 0, {new_token}, 1, {now_ms} + ?, {now_ms} + ?, {now_ms})
{claim_takeover}
RETURNING token, attempt, recovery_phase, recovery_state, NULL AS fingerprint, NULL AS status, NULL AS headers, NULL AS body,
          NULL AS expires_in

-- name: claim_many
-- Coalesced commits: the claims of concurrent callers (distinct keys, at most 64) in one statement and
-- one commit. Each row is decided exactly as the single claim decides it; a key with no row back is
-- live, and its caller answers it with the single claim (claim, then lookup).
-- Columns: scope, idem_key, then the single claim's columns in its order.
INSERT INTO idem_record AS r
    (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at)
VALUES {rows}
{claim_takeover}
RETURNING scope, idem_key, token, attempt, recovery_phase, recovery_state, NULL AS fingerprint, NULL AS status, NULL AS headers,
          NULL AS body, NULL AS expires_in

-- name: claim_many_row
-- params per row: scope, idem_key, fingerprint, lease_ms, retention_ms
(?, ?, ?, 0, {new_token}, 1, {now_ms} + ?, {now_ms} + ?, {now_ms})

-- name: lookup
SELECT fingerprint, state, lease_until - {now_ms} AS lease_left, expires_at - {now_ms} AS expires_in,
       (expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})) AS expired,
       status, headers, body
FROM idem_record WHERE scope = ? AND idem_key = ?

-- name: checkpoint
UPDATE idem_record SET recovery_phase = ?, recovery_state = ?
WHERE scope = ? AND idem_key = ? AND token = ? AND state = 0

-- name: complete
UPDATE idem_record SET state = 1, status = ?, headers = ?, body = ?, lease_until = {now_ms},
       expires_at = {now_ms} + ?, recovery_phase = NULL, recovery_state = NULL
WHERE scope = ? AND idem_key = ? AND token = ? AND state = 0

-- name: release
-- Keeps a tombstone (state 2) until expiry so the next owner's token still grows from this one's.
UPDATE idem_record SET state = 2, lease_until = {now_ms}, recovery_phase = NULL, recovery_state = NULL
WHERE scope = ? AND idem_key = ? AND token = ? AND state = 0

-- name: renew
UPDATE idem_record SET lease_until = {now_ms} + ?
WHERE scope = ? AND idem_key = ? AND token = ? AND state = 0

-- name: find
SELECT fingerprint, state, token, attempt, lease_until, expires_at, recovery_phase, recovery_state, status, headers, body
FROM idem_record
WHERE scope = ? AND idem_key = ? AND state <> 2
  AND NOT (expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms}))


-- name: renew_many_lock
-- The engine's batched renewal, step 1, in the renewal's own transaction: locks the in-progress
-- records of the given keys that nobody else has locked. SKIP LOCKED: a record another transaction
-- holds is left for the next tick instead of holding up every other lease behind it.
-- params per row: scope, idem_key
SELECT scope, idem_key, token FROM idem_record
WHERE state = 0 AND (scope, idem_key) IN ({rows})
FOR UPDATE SKIP LOCKED

-- name: renew_many_states
-- Step 2, a plain read: the in-progress records of the keys step 1 did not lock (locked by another
-- transaction: skipped this time; absent, finished or taken over: lost).
-- params per row: scope, idem_key
SELECT scope, idem_key, token FROM idem_record
WHERE state = 0 AND (scope, idem_key) IN ({rows})


-- name: renew_locked
-- Step 3, once per lease step 1 locked with its token unchanged, sent as one batch. By primary key:
-- a statement over a list of keys may scan (small tables do), and a scan would wait on the very
-- records step 1 skipped.
-- params: lease_ms, scope, idem_key
UPDATE idem_record SET lease_until = {now_ms} + ?
WHERE scope = ? AND idem_key = ? AND state = 0

-- name: renew_many_row
(?, ?)
