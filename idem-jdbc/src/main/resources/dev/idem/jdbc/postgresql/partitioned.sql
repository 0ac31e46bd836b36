-- idem: the PostgreSQL key store's statements when its table is partitioned by expires_at (retention
-- by partition, see docs/stores.md). They overlay ../common/statements.sql and ./statements.sql by
-- name. A partitioned table's unique keys must contain expires_at, so the table cannot refuse a
-- second row for one (scope, idem_key): every claim takes partitioned_lock, a transaction-scoped lock
-- on the key, before it looks for the key across the partitions and inserts.
-- Every write keeps lease_until <= expires_at, so a partition whose upper bound has passed holds no
-- live record and no write can make one live there: a write that extends a record's life moves the
-- row to a later partition.

-- name: partitioned_lock
-- Named per schema, table and key; the key is sent length-prefixed so that no scope/key split aliases another.
SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '.idem_record/' || CAST(? AS text), 0))

-- name: partitioned_insert
-- A new record, only if no partition holds the key (the lock above keeps that true to the commit).
-- DO NOTHING without a target: on today's unpartitioned table, during a migration, a store not yet
-- running this statement may insert the same key concurrently; its primary key then decides.
-- params: scope, idem_key, fingerprint, lease_ms, keep_ms (retention, at least the lease), scope, idem_key
INSERT INTO idem_record AS r
    (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at)
SELECT CAST(? AS text), CAST(? AS text), CAST(? AS text), 0, {new_token}, 1, {now_ms} + CAST(? AS bigint),
       {now_ms} + CAST(? AS bigint), {now_ms}
WHERE NOT EXISTS (SELECT 1 FROM idem_record e WHERE e.scope = ? AND e.idem_key = ?)
ON CONFLICT DO NOTHING
RETURNING token, attempt, recovery_phase, recovery_state, CAST(NULL AS text) AS fingerprint, CAST(NULL AS integer) AS status,
          CAST(NULL AS text) AS headers, CAST(NULL AS bytea) AS body, CAST(NULL AS bigint) AS expires_in

-- name: partitioned_takeover
-- The common claim_takeover as one conditional UPDATE (its WHERE is checked again on the newest row
-- version under the row lock). Moving expires_at may move the row to another partition.
-- params: fingerprint, lease_ms, keep_ms, keep_ms, scope, idem_key, fingerprint
UPDATE idem_record AS r SET
    token          = r.token + 1,
    attempt        = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.attempt + 1 ELSE 1 END,
    created_at     = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.created_at ELSE {now_ms} END,
    recovery_phase = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.recovery_phase END,
    recovery_state = CASE WHEN r.state = 0 AND r.expires_at > {now_ms} THEN r.recovery_state END,
    fingerprint    = CAST(? AS text),
    state          = 0,
    lease_until    = {now_ms} + CAST(? AS bigint),
    expires_at     = CASE WHEN r.state = 0 AND r.expires_at > {now_ms}
                          THEN greatest(r.expires_at, {now_ms} + CAST(? AS bigint)) ELSE {now_ms} + CAST(? AS bigint) END,
    status         = NULL,
    headers        = NULL,
    body           = NULL
WHERE r.scope = ? AND r.idem_key = ?
  AND (r.state = 2
       OR (r.expires_at <= {now_ms} AND (r.state <> 0 OR r.lease_until <= {now_ms}))
       OR (r.state = 0 AND r.lease_until <= {now_ms} AND r.fingerprint = CAST(? AS text)))
RETURNING r.token, r.attempt, r.recovery_phase, r.recovery_state, CAST(NULL AS text) AS fingerprint, CAST(NULL AS integer) AS status,
          CAST(NULL AS text) AS headers, CAST(NULL AS bytea) AS body, CAST(NULL AS bigint) AS expires_in

-- name: renew
-- A lease that outlives the retention carries the expiry with it (lease_until <= expires_at).
UPDATE idem_record r SET (lease_until, expires_at) =
    (SELECT v.until, greatest(r.expires_at, v.until) FROM (SELECT {now_ms} + CAST(? AS bigint) AS until) v)
WHERE r.scope = ? AND r.idem_key = ? AND r.token = ? AND r.state = 0

-- name: renew_locked
-- params: lease_ms, scope, idem_key
UPDATE idem_record r SET (lease_until, expires_at) =
    (SELECT v.until, greatest(r.expires_at, v.until) FROM (SELECT {now_ms} + CAST(? AS bigint) AS until) v)
WHERE r.scope = ? AND r.idem_key = ? AND r.state = 0

-- name: purge
-- Expired rows one by one, when the layout is set to delete them between drops. By the primary key
-- (a ctid is only unique within one partition). Parameters and result as the unpartitioned purge's:
-- from the expiry ? on, at most ? rows, the deleted rows' expiries back.
DELETE FROM idem_record WHERE (scope, idem_key, expires_at) IN (
    SELECT scope, idem_key, expires_at FROM idem_record
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
    ORDER BY expires_at
    LIMIT ? FOR UPDATE SKIP LOCKED)
  AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
RETURNING expires_at

-- name: purge_unpartitioned
-- The table before its conversion: the store's usual purge.
DELETE FROM idem_record WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idem_record
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
    ORDER BY expires_at
    LIMIT ? FOR UPDATE SKIP LOCKED))
  AND expires_at <= {now_ms} AND (state <> 0 OR lease_until <= {now_ms})
RETURNING expires_at

-- name: partition_create_table
-- The parent, for a store that starts on a partitioned layout. Same columns and checks as V1; the
-- primary key has to contain the partition key. {parent} is the table, or during a conversion the new
-- parent that takes its place; the checks keep the old table's names, which ATTACH matches. {unique}
-- is PRIMARY KEY, or UNIQUE for a conversion's parent: the old table, its first partition, keeps its
-- own primary key (scope, idem_key), and a table has only one.
CREATE TABLE IF NOT EXISTS {parent} (
    scope          text     NOT NULL,
    idem_key       text     NOT NULL,
    fingerprint    text     NOT NULL,
    state          smallint NOT NULL,
    token          bigint   NOT NULL,
    attempt        integer  NOT NULL,
    lease_until    bigint   NOT NULL,
    expires_at     bigint   NOT NULL,
    created_at     bigint   NOT NULL,
    recovery_phase text,
    recovery_state bytea,
    status         integer,
    headers        text,
    body           bytea,
    {unique} (scope, idem_key, expires_at),
    CONSTRAINT idem_record_state_check CHECK (state IN (0, 1, 2)),
    CONSTRAINT idem_record_key_length CHECK (char_length(idem_key) BETWEEN 1 AND 255)
) PARTITION BY RANGE (expires_at)

-- name: partition_create_lock
-- None here: the key's lock is an advisory lock.

-- name: partition_create_index
-- The conversion's new parent (V1 makes the index of a table created partitioned).
CREATE INDEX IF NOT EXISTS idem_record_exp_idx ON {parent} (expires_at)

-- name: partition_live_rows
-- Written before this layout (or by a store without it) a record may be in progress past its expiry
-- with a live lease; such a partition waits.
SELECT 1 FROM {partition} WHERE state = 0 AND lease_until > {now_ms} LIMIT 1

-- name: convert_index
-- Conversion, step 1: the index the partitioned primary key needs, built without blocking writes.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS idem_record_conv_pk ON idem_record (scope, idem_key, expires_at)

-- name: convert_kept
-- None: the key store keeps no rows below every expiry.

-- name: convert_keep_rows

-- name: convert_copy_kept

-- name: convert_delete_kept

-- name: convert_restore_kept

-- name: convert_recover_kept
