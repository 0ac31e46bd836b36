-- idem: the store's administration (StoreAdministration): metadata reads and the fenced release of a
-- stuck record. Never the body, the headers or the fingerprint. Live records only, as find reads them.
-- Columns of every read: scope, idem_key, state, token, attempt, lease_until, expires_at, created_at,
-- recovery_phase, recovery_state, status, body_bytes, now_ms (the database's clock at the read).

-- name: admin_inspect
SELECT scope, idem_key, state, token, attempt, lease_until, expires_at, created_at, recovery_phase, recovery_state, status,
       length(body) AS body_bytes, {now_ms} AS now_ms
FROM idem_record
WHERE scope = ? AND idem_key = ? AND state <> 2
  AND NOT (expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms}))

-- name: admin_expired_leases
-- In progress, lease over, retention not: nobody renews it, the next claim with its fingerprint takes it over.
-- By the index on (state, lease_until) of migration V6.
-- params: limit
SELECT scope, idem_key, state, token, attempt, lease_until, expires_at, created_at, recovery_phase, recovery_state, status,
       NULL AS body_bytes, {now_ms} AS now_ms
FROM idem_record
WHERE state = 0 AND lease_until <= {now_ms} AND expires_at > {now_ms}
ORDER BY lease_until, scope, idem_key
LIMIT ?

-- name: admin_oldest_in_progress
SELECT scope, idem_key, state, token, attempt, lease_until, expires_at, created_at, recovery_phase, recovery_state, status,
       NULL AS body_bytes, {now_ms} AS now_ms
FROM idem_record
WHERE state = 0 AND (expires_at > {now_ms} OR lease_until > {now_ms})
ORDER BY created_at, scope, idem_key
LIMIT 1

-- name: admin_release
-- The fenced release: a tombstone under the next token, so the holder's token-conditional writes
-- match nothing and the next claim's token grows from it. Only in progress under exactly the given
-- token, and, unless forced (the last parameter 1), with its lease over.
-- params: scope, idem_key, token, force (0 or 1)
UPDATE idem_record SET state = 2, token = token + 1, lease_until = {now_ms}, recovery_phase = NULL, recovery_state = NULL
WHERE scope = ? AND idem_key = ? AND token = ? AND state = 0
  AND (expires_at > {now_ms} OR lease_until > {now_ms})
  AND (? = 1 OR lease_until <= {now_ms})
