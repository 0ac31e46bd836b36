-- liquibase formatted sql
-- changeset idem:V1__create_idem_record
-- idem: idempotency records (SQLite). Plain SQL, safe to run by hand; idem's migrate() runs the same file.
-- Times are epoch milliseconds. Use the database in WAL mode with synchronous=FULL (see Sqlite.url).
CREATE TABLE IF NOT EXISTS idem_record (
    scope          TEXT    NOT NULL,
    idem_key       TEXT    NOT NULL,
    fingerprint    TEXT    NOT NULL,
    state          INTEGER NOT NULL CHECK (state IN (0, 1, 2)),  -- 0 in progress, 1 completed, 2 released
    token          INTEGER NOT NULL,  -- fencing token: grows with every acquisition of this record
    attempt        INTEGER NOT NULL,  -- 1, then +1 per takeover
    lease_until    INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    recovery_phase TEXT,
    recovery_state BLOB,
    status         INTEGER,
    headers        TEXT,
    body           BLOB,
    PRIMARY KEY (scope, idem_key)
);

CREATE INDEX IF NOT EXISTS idem_record_expires_at_idx ON idem_record (expires_at);
