-- liquibase formatted sql
-- changeset idem:V5__create_idem_kafka_offset
-- idem-kafka: consumed offsets kept in the database (MariaDB 10.6+, InnoDB), for the consumer's
-- offsets-in-database mode. Plain SQL, safe to run by hand; KafkaOffsetStore.migrate() runs the
-- same file. Times are epoch milliseconds on the database's clock. Group ids and topics compare
-- byte for byte (nopad_bin collations), as Kafka compares them; Kafka's topics have at most 249 characters.
CREATE TABLE IF NOT EXISTS idem_kafka_offset (
    group_id     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    topic        VARCHAR(249) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
    partition_id INT    NOT NULL,
    next_offset  BIGINT NOT NULL,  -- the offset of the next record to consume, as Kafka commits it
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (group_id, topic, partition_id),
    CONSTRAINT idem_kafka_offset_offset_check CHECK (next_offset >= 0 AND partition_id >= 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
