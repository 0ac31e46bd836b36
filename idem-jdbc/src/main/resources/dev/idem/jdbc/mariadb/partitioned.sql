-- idem: the MariaDB key store's statements when its table is RANGE-partitioned by expires_at (retention
-- by partition, see docs/stores.md and ../postgresql/partitioned.sql, which this mirrors). MariaDB too
-- requires the partitioning column in every unique key, so a claim takes partitioned_lock first: an
-- InnoDB row lock on one of 65,536 buckets of a small lock table, held to the claim's commit (a
-- session GET_LOCK would outlive a caller's transaction in the transactional mode). Keys that share a
-- bucket only wait for each other's claim.

-- name: partitioned_lock
INSERT INTO idem_record_lock (bucket) VALUES (CRC32(CONCAT('idem_record/', ?)) & 65535) ON DUPLICATE KEY UPDATE bucket = bucket

-- name: partitioned_insert
-- A new record, only if no partition holds the key. Not IGNORE: that would also turn "no partition
-- for this expiry" into a silently skipped row.
-- params: scope, idem_key, fingerprint, lease_ms, keep_ms, scope, idem_key
INSERT INTO idem_record
    (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at)
SELECT ?, ?, ?, 0, {new_token}, 1, {now_ms} + ?, {now_ms} + ?, {now_ms} FROM DUAL
WHERE NOT EXISTS (SELECT 1 FROM idem_record e WHERE e.scope = ? AND e.idem_key = ?)
RETURNING token, attempt, recovery_phase, recovery_state, NULL AS fingerprint, NULL AS status, NULL AS headers,
          NULL AS body, NULL AS expires_in

-- name: partitioned_takeover
-- Unused: MariaDB takes over with claim_takeover_update and claim_taken (ThreeStepTakeover).
SELECT 1

-- name: renew
-- SET runs left to right: expires_at sees the new lease_until, and carries the expiry along with it.
UPDATE idem_record SET lease_until = {now_ms} + ?, expires_at = GREATEST(expires_at, lease_until)
WHERE scope = ? AND idem_key = ? AND token = ? AND state = 0

-- name: renew_locked
UPDATE idem_record SET lease_until = {now_ms} + ?, expires_at = GREATEST(expires_at, lease_until)
WHERE scope = ? AND idem_key = ? AND state = 0

-- name: purge_unpartitioned
{purge}

-- name: partition_create_table
-- V1's table with the partition key in the primary key; MariaDB needs one partition to begin with.
CREATE TABLE IF NOT EXISTS {parent} (
    scope          VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    idem_key       VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
    fingerprint    TEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    state          TINYINT  NOT NULL,
    token          BIGINT   NOT NULL,
    attempt        INT      NOT NULL,
    lease_until    BIGINT   NOT NULL,
    expires_at     BIGINT   NOT NULL,
    created_at     BIGINT   NOT NULL,
    recovery_phase TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    recovery_state LONGBLOB,
    status         INT,
    headers        MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    body           LONGBLOB,
    PRIMARY KEY (scope, idem_key, expires_at),
    CONSTRAINT idem_record_state_check CHECK (state IN (0, 1, 2)),
    CONSTRAINT idem_record_key_length CHECK (CHAR_LENGTH(idem_key) BETWEEN 1 AND 255)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin
PARTITION BY RANGE (expires_at) (PARTITION {partition} VALUES LESS THAN ({to}))

-- name: partition_create_lock
CREATE TABLE IF NOT EXISTS idem_record_lock (bucket INT NOT NULL PRIMARY KEY) ENGINE = InnoDB

-- name: partition_create_index
-- The conversion's new parent: V1's and V6's indexes, which CONVERT TABLE requires the old table and
-- the parent to share (a table created partitioned gets them from V1 and V6 themselves).
ALTER TABLE {parent} ADD INDEX idem_record_expires_at_idx (expires_at), ADD INDEX idem_record_in_progress_idx (state, lease_until)

-- name: partition_live_rows
SELECT 1 FROM idem_record PARTITION ({partition}) WHERE state = 0 AND lease_until > {now_ms} LIMIT 1

-- ---- converting a live table (RetentionPartitions.convert; its shared steps in ./partitions.sql) ----

-- name: convert_index
-- Step 1: the partitioned layout's primary key on the old table. An online rebuild: InnoDB copies the
-- rows into the new clustered index while claims go on (concurrent writes are logged and applied at
-- the end), with a short exclusive metadata lock at its start and its end. LOCK = NONE makes it fail
-- rather than block writes where it could not be done online. From here on the table alone would take
-- a second row for a key, as a partitioned one does: only stores with retentionByPartition may run.
ALTER TABLE idem_record DROP PRIMARY KEY, ADD PRIMARY KEY (scope, idem_key, expires_at), ALGORITHM = INPLACE, LOCK = NONE

-- name: convert_kept
-- None: the key store keeps no rows below every expiry.

-- name: convert_keep_rows

-- name: convert_copy_kept

-- name: convert_delete_kept

-- name: convert_restore_kept

-- name: convert_recover_kept
