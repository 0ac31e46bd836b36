-- idem: the PostgreSQL outbox statements when idem_outbox is range-partitioned by created_at, each
-- event's time (retention by partition, see docs/messaging.md). They overlay ./outbox.sql and
-- ../common/outbox.sql by name; the relay's statements run on the partitioned table unchanged. A
-- partitioned table's unique keys must contain created_at: message ids are random UUIDs and
-- idem_outbox_sequence hands out each aggregate's sequences once, so neither needs an index of its own
-- to stay unique. RetentionPartitions drops a partition once its upper bound is the outbox's retention
-- in the past and partition_live_rows finds no event in it that is pending or sent within its
-- retention; it checks again after the concurrent detach, when no transaction can still write there.

-- name: partition_create_table
-- V3's idem_outbox with the partition key in its keys; its partitions come after, attached, and V3
-- then adds its indexes (CREATE TABLE IF NOT EXISTS skips this table).
CREATE TABLE IF NOT EXISTS {parent} (
    id              bigserial NOT NULL,
    message_id      text     NOT NULL,
    aggregate_type  text     NOT NULL,
    aggregate_id    text     NOT NULL,
    sequence        bigint   NOT NULL,
    event_type      text     NOT NULL,
    payload         bytea    NOT NULL,
    headers         text,
    created_at      bigint   NOT NULL,
    state           smallint NOT NULL,
    attempts        integer  NOT NULL,
    next_attempt_at bigint   NOT NULL,
    lease_owner     text,
    lease_until     bigint   NOT NULL,
    last_error      text,
    sent_at         bigint,
    expires_at      bigint,
    PRIMARY KEY (id, created_at),
    CONSTRAINT idem_outbox_message_id_key UNIQUE (message_id, created_at),
    CONSTRAINT idem_outbox_sequence_key UNIQUE (aggregate_type, aggregate_id, sequence, created_at),
    CONSTRAINT idem_outbox_state_check CHECK (state IN (0, 1))
) PARTITION BY RANGE (created_at)

-- name: partition_create_lock
-- None: appends of one aggregate take turns on its idem_outbox_sequence row.

-- name: partition_live_rows
-- What keeps a partition past its time: an event not sent yet (waiting, backing off after failures,
-- leased) or one sent less than its retention ago (published late). Along the two partial indexes.
SELECT 1 WHERE EXISTS (SELECT 1 FROM {partition} WHERE state = 0)
            OR EXISTS (SELECT 1 FROM {partition} WHERE state = 1 AND expires_at > {now_ms})
