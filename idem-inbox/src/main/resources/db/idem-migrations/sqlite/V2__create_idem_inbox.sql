-- liquibase formatted sql
-- changeset idem:V2__create_idem_inbox
-- idem: the inbox and its quarantine (SQLite). Plain SQL, safe to run by hand after V1;
-- Inbox.migrate() runs the same file. Times are epoch milliseconds.

-- One row per message a consumer has dealt with; claimed with
-- INSERT ... ON CONFLICT (consumer, message_id) DO NOTHING RETURNING message_id.
CREATE TABLE IF NOT EXISTS idem_inbox (
    consumer   TEXT    NOT NULL,
    message_id TEXT    NOT NULL,
    state      INTEGER NOT NULL CHECK (state IN (1, 2, 3)),  -- 1 processed, 2 quarantined, 3 dropped
    seen_at    INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,  -- purged after this, except while quarantined (state 2)
    PRIMARY KEY (consumer, message_id)
);

CREATE INDEX IF NOT EXISTS idem_inbox_expires_at_idx ON idem_inbox (expires_at);

-- Messages whose handler failed: state 0 is the durable attempt counter, state 1 the quarantine.
CREATE TABLE IF NOT EXISTS idem_quarantine (
    consumer      TEXT    NOT NULL,
    message_id    TEXT    NOT NULL,
    state         INTEGER NOT NULL CHECK (state IN (0, 1)),  -- 0 failing, 1 quarantined
    attempts      INTEGER NOT NULL,
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,  -- for state 0 only
    error_class   TEXT,
    error_message TEXT,
    payload       BLOB,
    headers       TEXT,
    PRIMARY KEY (consumer, message_id)
);

CREATE INDEX IF NOT EXISTS idem_quarantine_expires_at_idx ON idem_quarantine (expires_at);
