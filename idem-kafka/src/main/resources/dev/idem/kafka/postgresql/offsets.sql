-- idem-kafka: the offset store's statements (PostgreSQL). Each starts at a "-- name:" line.
-- {now_ms} is replaced by the now_ms statement; idem_kafka_offset by the configured table name.

-- name: now_ms
(extract(epoch from now()) * 1000)::bigint

-- name: lock_migrations
-- Held to the end of the migration's transaction, taken before the history table is created
-- (CREATE TABLE IF NOT EXISTS races between sessions in PostgreSQL).
SELECT pg_advisory_xact_lock(hashtext('idem_kafka_offset migrations'))

-- name: create_history
CREATE TABLE IF NOT EXISTS idem_kafka_offset_schema_history (
    version     integer PRIMARY KEY,
    description text    NOT NULL,
    applied_at  bigint  NOT NULL
)

-- name: offset_write
-- In the consumer's transaction, beside the inbox claims. Last write wins, as a Kafka commit does.
-- params: group_id, topic, partition_id, next_offset
INSERT INTO idem_kafka_offset (group_id, topic, partition_id, next_offset, updated_at)
VALUES (?, ?, ?, ?, {now_ms})
ON CONFLICT (group_id, topic, partition_id) DO UPDATE SET
    next_offset = excluded.next_offset,
    updated_at  = excluded.updated_at

-- name: offset_read
-- params: group_id, topic
SELECT partition_id, next_offset FROM idem_kafka_offset WHERE group_id = ? AND topic = ?
