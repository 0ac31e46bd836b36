-- idem: retention by partition's maintenance (MariaDB), for every table kept in that layout
-- (RetentionPartitions): the key store's idem_record and the inbox's idem_inbox. idem_record here
-- stands for the partitioned table and is renamed to it; what differs per table (its CREATE, what
-- keeps a past partition, its per-key lock table) is in the owner's statements, e.g. ./partitioned.sql.

-- name: partition_now
SELECT {now_ms}

-- name: partition_maintenance_lock
SELECT GET_LOCK(CONCAT('idem:', MD5(CONCAT(IFNULL(DATABASE(), ''), '/idem_record partitions'))), 0)

-- name: partition_maintenance_wait
SELECT GET_LOCK(CONCAT('idem:', MD5(CONCAT(IFNULL(DATABASE(), ''), '/idem_record partitions'))), 60)

-- name: partition_maintenance_unlock
SELECT RELEASE_LOCK(CONCAT('idem:', MD5(CONCAT(IFNULL(DATABASE(), ''), '/idem_record partitions'))))

-- name: partition_kind
SELECT CASE WHEN CREATE_OPTIONS LIKE '%partitioned%' THEN 'p' ELSE 'r' END
FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record'

-- name: partition_list
-- Each partition's bound in the text PostgreSQL's catalog gives, its lower bound the previous one's upper.
SELECT PARTITION_NAME,
       CONCAT('FROM (', IFNULL(LAG(PARTITION_DESCRIPTION) OVER (ORDER BY PARTITION_ORDINAL_POSITION), 'MINVALUE'),
              ') TO (', PARTITION_DESCRIPTION, ')'),
       0
FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record'

-- name: partition_new

-- name: partition_attach
-- Appends above the highest bound: a short exclusive metadata lock on the table.
ALTER TABLE {parent} ADD PARTITION (PARTITION {partition} VALUES LESS THAN ({to}))

-- name: partition_estimated_rows
SELECT TABLE_ROWS FROM information_schema.PARTITIONS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record' AND PARTITION_NAME = '{partition}'

-- name: partition_detach_concurrently

-- name: partition_detach

-- name: partition_detach_finalize

-- name: partition_drop
ALTER TABLE idem_record DROP PARTITION {partition}

-- ---- converting a live table (RetentionPartitions.convert): the steps every table shares; its key
-- ---- (convert_index), indexes and kept rows are the owner's
-- CONVERT TABLE … TO PARTITION (MariaDB 10.7+) makes the old table a partition of the new parent
-- without copying a row, but it needs both tables to have the same definition, primary key included;
-- it checks every row against the partition's bound. The steps PostgreSQL has and MariaDB does not
-- (a validated check constraint, a separate unique constraint) are blank here.

-- name: convert_max_expiry
-- Run under the swap's LOCK TABLES, along the expires_at index: the cut-over lies past every expiry.
SELECT max(expires_at) FROM idem_record

-- name: convert_parent_exists
-- A parent an attempt left: before its swap (dropped), or holding the table after CONVERT TABLE (renamed).
SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '{parent}'

-- name: convert_leftovers
-- A new parent an attempt that stopped before its swap left (nothing writes to it before the swap).
DROP TABLE IF EXISTS {parent}

-- name: convert_index_done
-- Whether step 1 is done already: the primary key holds expires_at.
SELECT 1 FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idem_record' AND INDEX_NAME = 'PRIMARY' AND COLUMN_NAME = 'expires_at'

-- name: convert_key

-- name: convert_unbound

-- name: convert_bound

-- name: convert_validate

-- name: convert_lock
-- Step 3: claims wait here (an exclusive metadata lock on the table) until convert_unlock; the lock
-- waits for the transactions open on the table first.
LOCK TABLES idem_record WRITE, {parent} WRITE

-- name: convert_rename_old

-- name: convert_rename_new
-- The parent takes the old table's name: claims waiting on that name open the parent when the lock ends.
ALTER TABLE {parent} RENAME TO idem_record

-- name: convert_attach_old
-- The old table becomes the parent's partition for every expiry from the placeholder's bound to the
-- cut-over: no row is copied, each is read once to check its bound (a scan, under the lock).
ALTER TABLE {parent} CONVERT TABLE idem_record TO PARTITION {partition} VALUES LESS THAN ({to})

-- name: convert_unlock
UNLOCK TABLES
