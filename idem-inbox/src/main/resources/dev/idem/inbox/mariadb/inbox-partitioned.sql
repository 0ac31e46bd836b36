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

-- ---- converting a live table: not available for the inbox on MariaDB (RetentionPartitions.convert says why)

-- name: partition_create_index

-- name: convert_index

-- name: convert_kept

-- name: convert_keep_rows
