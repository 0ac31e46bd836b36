-- liquibase formatted sql
-- changeset idem:V3__create_idem_outbox
-- idem: the transactional outbox (MariaDB 10.6+, InnoDB). Plain SQL, safe to run by hand after V2;
-- Outbox.migrate() runs the same file. Times are epoch milliseconds on the database's clock (UTC).

-- Events written in the business transaction, relayed to a broker in order per aggregate.
-- MariaDB has no partial indexes: the pending and expiry indexes lead with state instead.
CREATE TABLE IF NOT EXISTS idem_outbox (
    id              BIGINT NOT NULL AUTO_INCREMENT,  -- insertion order; within an aggregate it follows the sequence
    message_id      VARCHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,  -- stable id (a UUID) sent with every publish
    aggregate_type  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    aggregate_id    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    sequence        BIGINT   NOT NULL,  -- 1, 2, 3, ... per aggregate, from idem_outbox_sequence
    event_type      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    payload         LONGBLOB NOT NULL,
    headers         MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,  -- one escaped "name=value" line per header
    created_at      BIGINT   NOT NULL,
    state           TINYINT  NOT NULL,  -- 0 pending, 1 sent
    attempts        INT      NOT NULL,  -- failed publish attempts
    next_attempt_at BIGINT   NOT NULL,  -- after a failure: not before this (backoff)
    lease_owner     VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin,  -- the relay poll holding it, while lease_until is ahead
    lease_until     BIGINT   NOT NULL,
    last_error      TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    sent_at         BIGINT,
    expires_at      BIGINT,             -- sent events are purged after this
    PRIMARY KEY (id),
    CONSTRAINT idem_outbox_message_id_key UNIQUE (message_id),
    CONSTRAINT idem_outbox_sequence_key UNIQUE (aggregate_type, aggregate_id, sequence),
    CONSTRAINT idem_outbox_state_check CHECK (state IN (0, 1))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS idem_outbox_pending_idx ON idem_outbox (state, id);

CREATE INDEX IF NOT EXISTS idem_outbox_expires_at_idx ON idem_outbox (state, expires_at);

CREATE INDEX IF NOT EXISTS idem_outbox_owner_idx ON idem_outbox (lease_owner);

-- The last sequence per aggregate. Appending takes this row's lock until the business transaction
-- ends, so appends to one aggregate commit in sequence order and never collide on a sequence.
-- One row per aggregate ever written; it is kept so sequences never restart.
CREATE TABLE IF NOT EXISTS idem_outbox_sequence (
    aggregate_type VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    aggregate_id   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    last_sequence  BIGINT NOT NULL,
    PRIMARY KEY (aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
