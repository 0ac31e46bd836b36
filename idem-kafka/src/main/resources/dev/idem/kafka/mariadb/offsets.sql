-- idem-kafka: the offset store's MariaDB statements; the shared ones are in ../common/offsets.sql.
-- Parameters keep the shared statements' order.

-- name: offset_write
-- In the consumer's transaction, beside the inbox claims. Last write wins, as a Kafka commit does.
-- params: group_id, topic, partition_id, next_offset
INSERT INTO idem_kafka_offset (group_id, topic, partition_id, next_offset, updated_at)
VALUES (?, ?, ?, ?, {now_ms})
ON DUPLICATE KEY UPDATE
    next_offset = VALUES(next_offset),
    updated_at  = VALUES(updated_at)
