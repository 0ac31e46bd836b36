-- idem: the MariaDB inbox statements when idem_inbox is RANGE-partitioned by expires_at (retention
-- by partition, see ../postgresql/inbox-partitioned.sql, which this mirrors). MariaDB too requires the
-- partitioning column in every unique key, so every write that adds a message's row takes inbox_lock
-- first: an InnoDB row lock on one of 65,536 buckets of idem_inbox_lock per id, held to the commit of
-- the consumer's transaction (as the key store's partitioned_lock). The inbox computes the buckets
-- and sends them sorted, so two batches take them in one order. Ids that share a bucket only wait
-- for each other's transaction.

-- name: inbox_lock
-- params: the buckets, ascending
INSERT INTO idem_inbox_lock (bucket) VALUES {rows} ON DUPLICATE KEY UPDATE bucket = bucket

-- name: inbox_claim
-- The claim under inbox_lock: the ids no partition holds. Its rows form a derived table (joined by
-- UNION ALL). The inbox runs its own transactions at READ COMMITTED, where the NOT EXISTS is a plain
-- read of a snapshot taken after the locks (no gap locks, so claims of neighbouring ids do not
-- deadlock); in a caller's REPEATABLE READ transaction it is a locking read, which sees what an
-- earlier holder of a bucket committed whatever the transaction's snapshot. Not IGNORE: that would
-- also turn "no partition for this expiry" into a silently skipped message.
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT v.consumer, v.message_id, 1, {now_ms}, {now_ms} + v.keep_ms
FROM ({rows}) v
WHERE NOT EXISTS (SELECT 1 FROM idem_inbox e WHERE e.consumer = v.consumer AND e.message_id = v.message_id)
RETURNING message_id

-- name: inbox_claim_row
-- params: consumer, message_id, retention_ms. The columns' own collations, so that the comparison above is the table's.
SELECT CONVERT(? USING ascii) COLLATE ascii_nopad_bin AS consumer, CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin AS message_id,
       CAST(? AS SIGNED) AS keep_ms

-- name: inbox_quarantine_claim
-- Under inbox_lock for the id: the quarantined row (expires_at 0, in the kept partition), unless a
-- delivery was processed meanwhile.
-- params: consumer, message_id
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT v.consumer, v.message_id, 2, {now_ms}, 0
FROM (SELECT CONVERT(? USING ascii) COLLATE ascii_nopad_bin AS consumer, CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin AS message_id) v
WHERE NOT EXISTS (SELECT 1 FROM idem_inbox e WHERE e.consumer = v.consumer AND e.message_id = v.message_id)

-- name: partition_create_table
-- V2's idem_inbox with the partition key in the primary key, created with the kept partition (expiries
-- of 0 or less: quarantined messages, never dropped) and the first dated one.
CREATE TABLE IF NOT EXISTS {parent} (
    consumer   VARCHAR(200) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
    message_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    state      TINYINT NOT NULL,
    seen_at    BIGINT  NOT NULL,
    expires_at BIGINT  NOT NULL,
    PRIMARY KEY (consumer, message_id, expires_at),
    CONSTRAINT idem_inbox_state_check CHECK (state IN (1, 2, 3)),
    CONSTRAINT idem_inbox_id_length CHECK (CHAR_LENGTH(message_id) BETWEEN 1 AND 255)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin
PARTITION BY RANGE (expires_at) (PARTITION idem_inbox_pkeep VALUES LESS THAN (1), PARTITION {partition} VALUES LESS THAN ({to}))

-- name: partition_create_lock
CREATE TABLE IF NOT EXISTS idem_inbox_lock (bucket INT NOT NULL PRIMARY KEY) ENGINE = InnoDB

-- name: partition_live_rows
-- None: a processed or dropped message's row is past its retention once its expiry is, and a
-- quarantined one lives in the kept partition.

-- ---- converting a live table (RetentionPartitions.convert; the steps every table shares are idem-jdbc's partitions.sql)

-- name: partition_create_index
-- The conversion's new parent: V2's index, which CONVERT TABLE requires both tables to share.
ALTER TABLE {parent} ADD INDEX idem_inbox_expires_at_idx (expires_at)

-- name: convert_index
-- Step 1: the partitioned layout's primary key on the old table, rebuilt online (rows copied into the
-- new clustered index while deliveries go on; a short exclusive metadata lock at its start and end).
ALTER TABLE idem_inbox DROP PRIMARY KEY, ADD PRIMARY KEY (consumer, message_id, expires_at), ALGORITHM = INPLACE, LOCK = NONE

-- name: convert_kept
-- Quarantined rows written before the layout carry the largest expiry, which no partition takes; the
-- layout keeps them at 0 (an inbox with the layout writes them so on the old table already). Along the
-- expires_at index; again under the swap's lock.
UPDATE idem_inbox SET expires_at = 0 WHERE expires_at = 9223372036854775807 AND state = 2

-- name: convert_keep_rows
-- None: the kept rows move before the swap (convert_copy_kept).

-- name: convert_copy_kept
-- Under the swap's LOCK TABLES: the quarantined rows, which CONVERT TABLE would refuse (below the
-- partition it makes), into the new parent's kept partition; only them, along the expires_at index.
INSERT INTO {parent} (consumer, message_id, state, seen_at, expires_at)
SELECT consumer, message_id, state, seen_at, expires_at FROM idem_inbox WHERE expires_at < 1

-- name: convert_delete_kept
DELETE FROM idem_inbox WHERE expires_at < 1

-- name: convert_restore_kept
-- A swap that failed after the move, still under its LOCK TABLES (so the table cannot have gained
-- these ids meanwhile, and no alias may name a locked table): the kept rows back into the table.
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT consumer, message_id, state, seen_at, expires_at FROM {parent} WHERE expires_at < 1

-- name: convert_recover_kept
-- An attempt that stopped after the move (MariaDB commits each statement apart), before the next one
-- drops its parent: the kept rows back into the table, those whose id it has not taken since.
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT p.consumer, p.message_id, p.state, p.seen_at, p.expires_at FROM {parent} p
WHERE p.expires_at < 1
  AND NOT EXISTS (SELECT 1 FROM idem_inbox e WHERE e.consumer = p.consumer AND e.message_id = p.message_id)
