-- idem: retention by partition's maintenance (PostgreSQL), for every table kept in that layout
-- (RetentionPartitions): the key store's idem_record and the inbox's idem_inbox. idem_record here
-- stands for the partitioned table and is renamed to it; what differs per table (its CREATE, what
-- keeps a past partition, its per-key lock table) is in the owner's statements, e.g. ./partitioned.sql.

-- name: partition_now
SELECT {now_ms}

-- name: partition_maintenance_lock
-- Session-scoped (DETACH … CONCURRENTLY cannot run inside a transaction block); one maintainer per
-- table at a time, the others skip their turn.
SELECT pg_try_advisory_lock(hashtextextended(current_schema() || '.idem_record partitions', 0))

-- name: partition_maintenance_wait
-- The same lock, waited for: creating the parent races between instances starting together.
SELECT pg_advisory_lock(hashtextextended(current_schema() || '.idem_record partitions', 0))

-- name: partition_maintenance_unlock
SELECT pg_advisory_unlock(hashtextextended(current_schema() || '.idem_record partitions', 0))

-- name: partition_kind
-- 'p' partitioned, 'r' a plain table, no row: absent.
SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('idem_record')

-- name: partition_list
-- The partitions with their bounds' text ("FOR VALUES FROM ('1') TO ('2')", MINVALUE for the first
-- after a conversion) and whether a concurrent detach was left pending.
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid), i.inhdetachpending
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = to_regclass('idem_record')

-- name: partition_new
-- A partition is made as a table of its own and attached: ATTACH takes a lock that lets claims go on
-- (CREATE TABLE … PARTITION OF would lock every reader and writer of the parent out).
CREATE TABLE IF NOT EXISTS {partition} (LIKE {parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)

-- name: partition_attach
ALTER TABLE {parent} ATTACH PARTITION {partition} FOR VALUES FROM ({from}) TO ({to})

-- name: partition_estimated_rows
SELECT greatest(c.reltuples, 0)::bigint FROM pg_class c WHERE c.oid = to_regclass('{partition}')

-- name: partition_detach_concurrently
ALTER TABLE idem_record DETACH PARTITION {partition} CONCURRENTLY

-- name: partition_detach
-- In a transaction (ACCESS EXCLUSIVE on the parent): a converted table's first partition, replaced by the kept one.
ALTER TABLE idem_record DETACH PARTITION {partition}

-- name: partition_detach_finalize
ALTER TABLE idem_record DETACH PARTITION {partition} FINALIZE

-- name: partition_drop
DROP TABLE IF EXISTS {partition}

-- ---- converting a live table (RetentionPartitions.convert): the steps every table shares; its key
-- ---- (convert_index), indexes and kept rows are the owner's

-- name: convert_max_expiry
-- The cut-over lies past every expiry the old table holds (along its expires_at index).
SELECT max(expires_at) FROM idem_record

-- name: convert_parent_exists
-- None: a parent left here holds no rows (the swap is one transaction).

-- name: convert_leftovers
-- What an attempt that stopped before its last step left: a new parent never put in place (nothing
-- writes to it before the swap) and an index left invalid by a failed concurrent build.
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('idem_record_conv_pk') AND NOT indisvalid) THEN
        DROP INDEX idem_record_conv_pk;
    END IF;
END $$;
DROP TABLE IF EXISTS {parent}

-- name: convert_index_done
-- None: convert_index is IF NOT EXISTS.

-- name: convert_key
-- The index as a constraint: ATTACH matches a parent's constraint only with a child's constraint.
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass('idem_record') AND conname = 'idem_record_conv_key') THEN
        ALTER TABLE idem_record ADD CONSTRAINT idem_record_conv_key UNIQUE USING INDEX idem_record_conv_pk;
    END IF;
END $$

-- name: convert_unbound
ALTER TABLE idem_record DROP CONSTRAINT IF EXISTS idem_record_conv_bound

-- name: convert_bound
-- Step 2: every row now and from now on expires before the cut-over, so ATTACH need not scan.
ALTER TABLE idem_record ADD CONSTRAINT idem_record_conv_bound CHECK (expires_at < {to}) NOT VALID

-- name: convert_validate
ALTER TABLE idem_record VALIDATE CONSTRAINT idem_record_conv_bound

-- name: convert_lock
-- Step 4, one short transaction: the old table becomes the first partition of the new parent.
LOCK TABLE idem_record IN ACCESS EXCLUSIVE MODE

-- name: convert_rename_old
ALTER TABLE idem_record RENAME TO {partition}

-- name: convert_rename_new
ALTER TABLE {parent} RENAME TO idem_record

-- name: convert_attach_old
ALTER TABLE idem_record ATTACH PARTITION {partition} FOR VALUES FROM (MINVALUE) TO ({to})

-- name: convert_unlock
-- None: the swap's transaction ends the lock.
