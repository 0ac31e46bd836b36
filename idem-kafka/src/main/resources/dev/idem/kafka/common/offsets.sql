-- idem-kafka: the offset store's statements every dialect shares unless its own offsets.sql overrides
-- one by name (MariaDB writes with ON DUPLICATE KEY). Each starts at a "-- name:" line. The clock,
-- the history table and the migration lock are idem-jdbc's (dev/idem/jdbc/<dialect>/statements.sql);
-- idem_kafka_offset is replaced by the configured table name.

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
