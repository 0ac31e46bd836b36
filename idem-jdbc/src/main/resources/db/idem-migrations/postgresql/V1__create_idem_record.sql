-- liquibase formatted sql
-- changeset idem:V1__create_idem_record
-- idem: idempotency records (PostgreSQL). Plain SQL, safe to run by hand; idem's migrate() runs the same file.
-- Times are epoch milliseconds on the database's clock, so every application instance judges leases alike.
CREATE TABLE IF NOT EXISTS idem_record (
    scope          text     NOT NULL,
    idem_key       text     NOT NULL,
    fingerprint    text     NOT NULL,
    state          smallint NOT NULL,  -- 0 in progress, 1 completed, 2 released (absent for claims)
    token          bigint   NOT NULL,  -- fencing token: grows with every acquisition of this record
    attempt        integer  NOT NULL,  -- 1, then +1 per takeover
    lease_until    bigint   NOT NULL,
    expires_at     bigint   NOT NULL,
    created_at     bigint   NOT NULL,
    recovery_phase text,
    recovery_state bytea,
    status         integer,
    headers        text,
    body           bytea,
    PRIMARY KEY (scope, idem_key),
    CONSTRAINT idem_record_state_check CHECK (state IN (0, 1, 2)),
    CONSTRAINT idem_record_key_length CHECK (char_length(idem_key) BETWEEN 1 AND 255)
);

CREATE INDEX IF NOT EXISTS idem_record_expires_at_idx ON idem_record (expires_at);
