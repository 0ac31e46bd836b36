-- idem: the MariaDB outbox statements when idem_outbox is RANGE-partitioned by created_at (retention
-- by partition; ../postgresql/outbox-partitioned.sql says why no unique index on message_id or the
-- sequence is needed). RetentionPartitions drops a partition (ALTER TABLE ... DROP PARTITION) once its
-- upper bound is the outbox's retention in the past and partition_live_rows finds no event in it that
-- is pending or sent within its retention.

-- name: partition_create_table
-- V3's idem_outbox with the partition key in its keys, created with its first partition; V3 then adds
-- its indexes (CREATE TABLE IF NOT EXISTS skips this table).
CREATE TABLE IF NOT EXISTS {parent} (
    id              BIGINT NOT NULL AUTO_INCREMENT,
    message_id      VARCHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    aggregate_type  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    aggregate_id    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    sequence        BIGINT   NOT NULL,
    event_type      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    payload         LONGBLOB NOT NULL,
    headers         MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    created_at      BIGINT   NOT NULL,
    state           TINYINT  NOT NULL,
    attempts        INT      NOT NULL,
    next_attempt_at BIGINT   NOT NULL,
    lease_owner     VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin,
    lease_until     BIGINT   NOT NULL,
    last_error      TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    sent_at         BIGINT,
    expires_at      BIGINT,
    PRIMARY KEY (id, created_at),
    CONSTRAINT idem_outbox_message_id_key UNIQUE (message_id, created_at),
    CONSTRAINT idem_outbox_sequence_key UNIQUE (aggregate_type, aggregate_id, sequence, created_at),
    CONSTRAINT idem_outbox_state_check CHECK (state IN (0, 1))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin
PARTITION BY RANGE (created_at) (PARTITION {partition} VALUES LESS THAN ({to}))

-- name: partition_create_lock
-- None: appends of one aggregate take turns on its idem_outbox_sequence row.

-- name: partition_live_rows
-- What keeps a partition past its time: an event not sent yet or one sent less than its retention
-- ago. Locking reads along the (state, ...) indexes: an append that inserted into the partition and
-- has not committed yet is waited for and then seen (a plain read would miss it, and the drop would
-- take it along). No append can still start there: an event's time is its INSERT's start, and the
-- partition's bound is the retention in the past.
(SELECT 1 FROM idem_outbox PARTITION ({partition}) WHERE state = 0 LIMIT 1 LOCK IN SHARE MODE)
UNION ALL
(SELECT 1 FROM idem_outbox PARTITION ({partition}) WHERE state = 1 AND expires_at > {now_ms} LIMIT 1 LOCK IN SHARE MODE)
