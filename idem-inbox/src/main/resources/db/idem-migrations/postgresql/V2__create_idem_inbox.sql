-- liquibase formatted sql
-- changeset idem:V2__create_idem_inbox
-- idem: the inbox and its quarantine (PostgreSQL). Plain SQL, safe to run by hand after V1;
-- Inbox.migrate() runs the same file. Times are epoch milliseconds on the database's clock.

-- One row per message a consumer has dealt with. The claim is
-- INSERT ... ON CONFLICT (consumer, message_id) DO NOTHING RETURNING message_id, in the consumer's
-- own transaction: a row back means "new, process it"; none means "seen before". It never raises
-- a unique violation, so a duplicate never aborts the transaction.
CREATE TABLE IF NOT EXISTS idem_inbox (
    consumer   text     NOT NULL,
    message_id text     NOT NULL,
    state      smallint NOT NULL,  -- 1 processed, 2 quarantined, 3 dropped from the quarantine
    seen_at    bigint   NOT NULL,  -- when it reached that state
    expires_at bigint   NOT NULL,  -- purged after this, except while quarantined (state 2)
    PRIMARY KEY (consumer, message_id),
    CONSTRAINT idem_inbox_state_check CHECK (state IN (1, 2, 3)),
    CONSTRAINT idem_inbox_id_length CHECK (char_length(message_id) BETWEEN 1 AND 255)
);

CREATE INDEX IF NOT EXISTS idem_inbox_expires_at_idx ON idem_inbox (expires_at);

-- Messages whose handler failed. While state is 0 the row is the message's durable attempt counter
-- (written in its own short transaction after the failed one rolled back) and expires like an inbox
-- row. At the configured number of attempts state becomes 1: quarantined, with the message's
-- payload, headers and last error, kept until an operator replays or drops it.
CREATE TABLE IF NOT EXISTS idem_quarantine (
    consumer      text     NOT NULL,
    message_id    text     NOT NULL,
    state         smallint NOT NULL,  -- 0 failing (counting attempts), 1 quarantined
    attempts      integer  NOT NULL,
    first_seen    bigint   NOT NULL,  -- first failure
    last_seen     bigint   NOT NULL,  -- last failure
    expires_at    bigint   NOT NULL,  -- for state 0 only
    error_class   text,
    error_message text,               -- the last error's message, truncated
    payload       bytea,
    headers       text,               -- one escaped "name=value" line per header
    PRIMARY KEY (consumer, message_id),
    CONSTRAINT idem_quarantine_state_check CHECK (state IN (0, 1))
);

CREATE INDEX IF NOT EXISTS idem_quarantine_expires_at_idx ON idem_quarantine (expires_at);
