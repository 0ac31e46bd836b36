-- liquibase formatted sql
-- changeset idem:V3__create_idem_outbox
-- idem: the transactional outbox (PostgreSQL). Plain SQL, safe to run by hand after V2;
-- Outbox.migrate() runs the same file. Times are epoch milliseconds on the database's clock.

-- Events written in the business transaction, relayed to a broker in order per aggregate.
CREATE TABLE IF NOT EXISTS idem_outbox (
    id              bigserial PRIMARY KEY,  -- insertion order; within an aggregate it follows the sequence
    message_id      text     NOT NULL,      -- stable id (a UUID) sent with every publish of this event
    aggregate_type  text     NOT NULL,
    aggregate_id    text     NOT NULL,
    sequence        bigint   NOT NULL,      -- 1, 2, 3, ... per aggregate, from idem_outbox_sequence
    event_type      text     NOT NULL,
    payload         bytea    NOT NULL,
    headers         text,                   -- one escaped "name=value" line per header
    created_at      bigint   NOT NULL,
    state           smallint NOT NULL,      -- 0 pending, 1 sent
    attempts        integer  NOT NULL,      -- failed publish attempts
    next_attempt_at bigint   NOT NULL,      -- after a failure: not before this (backoff)
    lease_owner     text,                   -- the relay poll holding it, while lease_until is ahead
    lease_until     bigint   NOT NULL,
    last_error      text,
    sent_at         bigint,
    expires_at      bigint,                 -- sent events are purged after this
    CONSTRAINT idem_outbox_message_id_key UNIQUE (message_id),
    CONSTRAINT idem_outbox_sequence_key UNIQUE (aggregate_type, aggregate_id, sequence),
    CONSTRAINT idem_outbox_state_check CHECK (state IN (0, 1))
);

CREATE INDEX IF NOT EXISTS idem_outbox_pending_idx ON idem_outbox (id) WHERE state = 0;

CREATE INDEX IF NOT EXISTS idem_outbox_expires_at_idx ON idem_outbox (expires_at) WHERE state = 1;

-- The last sequence per aggregate. Appending takes this row's lock until the business transaction
-- ends, so appends to one aggregate commit in sequence order and never collide on a sequence.
-- One row per aggregate ever written; it is kept so sequences never restart.
CREATE TABLE IF NOT EXISTS idem_outbox_sequence (
    aggregate_type text   NOT NULL,
    aggregate_id   text   NOT NULL,
    last_sequence  bigint NOT NULL,
    PRIMARY KEY (aggregate_type, aggregate_id)
);
