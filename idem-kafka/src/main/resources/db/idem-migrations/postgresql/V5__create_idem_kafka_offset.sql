-- liquibase formatted sql
-- changeset idem:V5__create_idem_kafka_offset
-- idem-kafka: consumed offsets kept in the database (PostgreSQL), for the consumer's
-- offsets-in-database mode. Plain SQL, safe to run by hand; KafkaOffsetStore.migrate() runs the
-- same file. The consumer writes a partition's next offset in the same transaction as the inbox
-- claims and the business writes of the records before it, and seeks to it when the partition is
-- assigned, so no offset is ever committed to Kafka. Times are epoch milliseconds on the database's clock.
CREATE TABLE IF NOT EXISTS idem_kafka_offset (
    group_id     text    NOT NULL,  -- the Kafka consumer group
    topic        text    NOT NULL,
    partition_id integer NOT NULL,
    next_offset  bigint  NOT NULL,  -- the offset of the next record to consume, as Kafka commits it
    updated_at   bigint  NOT NULL,
    PRIMARY KEY (group_id, topic, partition_id),
    CONSTRAINT idem_kafka_offset_offset_check CHECK (next_offset >= 0 AND partition_id >= 0)
);
