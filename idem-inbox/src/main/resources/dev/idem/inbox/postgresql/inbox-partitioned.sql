-- idem: the PostgreSQL inbox statements when idem_inbox is partitioned by expires_at (retention by
-- partition, see docs/messaging.md). They overlay ./inbox.sql and ../common/inbox.sql by name. A
-- partitioned table's unique keys must contain expires_at, so no index refuses a second row for one
-- (consumer, message_id): every write that adds a message's row takes inbox_lock first, a
-- transaction-scoped lock on each of its ids, held to the commit of the consumer's transaction, and
-- then inserts only the ids no partition holds. The lock, not a unique index, keeps the dedupe
-- atomic with the handler's writes: a second delivery waits for the first one's commit or rollback.
-- A quarantined message's row has expires_at 0: it sits in idem_inbox_pkeep, below every expiry,
-- which is never dropped; a replay or a drop gives it an expiry, moving it to a dated partition.

-- name: inbox_lock
-- The ids' locks, in one statement for a whole batch, taken in the order of their lock keys: two
-- batches with overlapping ids wait for each other, never on each other. Named per schema, table,
-- consumer and id (a consumer name and an id hold no line feed). Under a stricter isolation than
-- READ COMMITTED it locks nothing and answers 0, which the inbox refuses: the claim's snapshot would
-- then be older than the lock it waited for.
-- params: consumer, message_ids (text, joined by chr(10))
SELECT count(pg_advisory_xact_lock(s.k)) FROM (
    SELECT DISTINCT hashtextextended(current_schema() || '.idem_inbox/' || v.consumer || chr(10) || m.id, 0) AS k
    FROM (SELECT CAST(? AS text) AS consumer) v, unnest(string_to_array(CAST(? AS text), chr(10))) AS m(id)
    ORDER BY k) s
WHERE current_setting('transaction_isolation') = 'read committed'

-- name: inbox_claim
-- The claim under inbox_lock: the ids no partition holds. Run as its own statement after the lock,
-- so that its snapshot (READ COMMITTED) sees what an earlier holder of a lock committed. DO NOTHING
-- without a target: on an unpartitioned table the primary key still decides.
-- params: consumer, retention_ms, message_ids (text, joined by chr(10))
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT v.consumer, m.message_id, 1, {now_ms}, {now_ms} + v.keep_ms
FROM (SELECT CAST(? AS text) AS consumer, CAST(? AS bigint) AS keep_ms) v,
     unnest(string_to_array(CAST(? AS text), chr(10))) WITH ORDINALITY AS m(message_id, n)
WHERE NOT EXISTS (SELECT 1 FROM idem_inbox e WHERE e.consumer = v.consumer AND e.message_id = m.message_id)
ORDER BY m.n
ON CONFLICT DO NOTHING
RETURNING message_id

-- name: inbox_quarantine_claim
-- Under inbox_lock for the id, as the claim: the quarantined row, unless a delivery was processed meanwhile.
-- params: consumer, message_id
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT v.consumer, v.message_id, 2, {now_ms}, 0
FROM (SELECT CAST(? AS text) AS consumer, CAST(? AS text) AS message_id) v
WHERE NOT EXISTS (SELECT 1 FROM idem_inbox e WHERE e.consumer = v.consumer AND e.message_id = v.message_id)
ON CONFLICT DO NOTHING

-- name: inbox_purge
-- Expired rows one by one (purgeRowsBetweenDrops, or a table not partitioned yet), by the primary
-- key: a ctid is only unique within one partition.
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_inbox WHERE (consumer, message_id, expires_at) IN (
    SELECT consumer, message_id, expires_at FROM idem_inbox
    WHERE expires_at >= ? AND expires_at <= {now_ms} AND state <> 2
    ORDER BY expires_at
    LIMIT ? FOR UPDATE SKIP LOCKED)
  AND expires_at <= {now_ms} AND state <> 2
RETURNING expires_at

-- name: partition_create_table
-- V2's idem_inbox with the partition key in the primary key; its partitions come after, attached.
-- {unique} is PRIMARY KEY, or UNIQUE for a conversion's parent (the old table, its first partition,
-- keeps its own primary key).
CREATE TABLE IF NOT EXISTS {parent} (
    consumer   text     NOT NULL,
    message_id text     NOT NULL,
    state      smallint NOT NULL,
    seen_at    bigint   NOT NULL,
    expires_at bigint   NOT NULL,
    {unique} (consumer, message_id, expires_at),
    CONSTRAINT idem_inbox_state_check CHECK (state IN (1, 2, 3)),
    CONSTRAINT idem_inbox_id_length CHECK (char_length(message_id) BETWEEN 1 AND 255)
) PARTITION BY RANGE (expires_at)

-- name: partition_create_lock
-- None here: an id's lock is an advisory lock.

-- name: partition_live_rows
-- None: a processed or dropped message's row is past its retention once its expiry is, and a
-- quarantined one lives in the kept partition.

-- ---- converting a live table (RetentionPartitions.convert; the steps every table shares are idem-jdbc's partitions.sql)

-- name: partition_create_index
-- The conversion's new parent (V2 makes the index of a table created partitioned).
CREATE INDEX IF NOT EXISTS idem_inbox_exp_idx ON {parent} (expires_at)

-- name: convert_index
-- Step 1: the index the parent's unique key needs, built without blocking writes.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS idem_inbox_conv_pk ON idem_inbox (consumer, message_id, expires_at)

-- name: convert_kept
-- Quarantined rows written before the layout carry the largest expiry, which no partition takes; the
-- layout keeps them at 0 (an inbox with the layout writes them so on the old table already). Along the
-- expires_at index.
UPDATE idem_inbox SET expires_at = 0 WHERE expires_at = 9223372036854775807 AND state = 2

-- name: convert_keep_rows
-- When the converted table's first partition ({partition}, detached, in the same transaction) goes:
-- its quarantined rows into the kept partition attached in its place.
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
SELECT consumer, message_id, state, seen_at, expires_at FROM {partition} WHERE expires_at < 1

-- name: convert_copy_kept
-- None: the old table keeps the quarantined rows until convert_keep_rows.

-- name: convert_delete_kept

-- name: convert_restore_kept

-- name: convert_recover_kept
