-- idem-kafka: the offset store's statements (SQLite). Each starts at a "-- name:" line.
-- {now_ms} is replaced by the now_ms statement; idem_kafka_offset by the configured table name.

-- name: now_ms
CAST(unixepoch('subsec') * 1000 AS INTEGER)

-- name: create_history
CREATE TABLE IF NOT EXISTS idem_kafka_offset_schema_history (
    version     INTEGER PRIMARY KEY,
    description TEXT    NOT NULL,
    applied_at  INTEGER NOT NULL
)

-- name: lock_history
-- Run after create_history in the migration's transaction: a write, even one that changes nothing,
-- takes SQLite's write lock until the transaction ends.
UPDATE idem_kafka_offset_schema_history SET version = version WHERE 0

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
