-- liquibase formatted sql
-- changeset idem:V3__create_idem_outbox
-- idem: the transactional outbox (SQLite). Plain SQL, safe to run by hand after V2;
-- Outbox.migrate() runs the same file. Times are epoch milliseconds.
CREATE TABLE IF NOT EXISTS idem_outbox (
    id              INTEGER PRIMARY KEY,
    message_id      TEXT    NOT NULL UNIQUE,
    aggregate_type  TEXT    NOT NULL,
    aggregate_id    TEXT    NOT NULL,
    sequence        INTEGER NOT NULL,
    event_type      TEXT    NOT NULL,
    payload         BLOB    NOT NULL,
    headers         TEXT,
    created_at      INTEGER NOT NULL,
    state           INTEGER NOT NULL CHECK (state IN (0, 1)),  -- 0 pending, 1 sent
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    lease_owner     TEXT,
    lease_until     INTEGER NOT NULL,
    last_error      TEXT,
    sent_at         INTEGER,
    expires_at      INTEGER,
    UNIQUE (aggregate_type, aggregate_id, sequence)
);

CREATE INDEX IF NOT EXISTS idem_outbox_pending_idx ON idem_outbox (id) WHERE state = 0;

CREATE INDEX IF NOT EXISTS idem_outbox_expires_at_idx ON idem_outbox (expires_at) WHERE state = 1;

CREATE TABLE IF NOT EXISTS idem_outbox_sequence (
    aggregate_type TEXT    NOT NULL,
    aggregate_id   TEXT    NOT NULL,
    last_sequence  INTEGER NOT NULL,
    PRIMARY KEY (aggregate_type, aggregate_id)
);
