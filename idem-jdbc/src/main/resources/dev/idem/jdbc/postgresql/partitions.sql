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

-- name: partition_detach_finalize
ALTER TABLE idem_record DETACH PARTITION {partition} FINALIZE

-- name: partition_drop
DROP TABLE IF EXISTS {partition}
