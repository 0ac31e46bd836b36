-- liquibase formatted sql
-- changeset idem:V5__create_idem_kafka_offset
-- idem-kafka: consumed offsets kept in the database (SQLite), for the consumer's
-- offsets-in-database mode. Plain SQL, safe to run by hand; KafkaOffsetStore.migrate() runs the
-- same file. Times are epoch milliseconds.
CREATE TABLE IF NOT EXISTS idem_kafka_offset (
    group_id     TEXT    NOT NULL,
    topic        TEXT    NOT NULL,
    partition_id INTEGER NOT NULL CHECK (partition_id >= 0),
    next_offset  INTEGER NOT NULL CHECK (next_offset >= 0),
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic, partition_id)
);
