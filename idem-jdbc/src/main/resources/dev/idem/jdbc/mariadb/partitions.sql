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

-- name: partition_detach_finalize

-- name: partition_drop
ALTER TABLE idem_record DROP PARTITION {partition}
