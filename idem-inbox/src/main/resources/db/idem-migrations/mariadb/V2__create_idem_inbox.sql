-- liquibase formatted sql
-- changeset idem:V2__create_idem_inbox
-- idem: the inbox and its quarantine (MariaDB 10.6+, InnoDB). Plain SQL, safe to run by hand after V1;
-- Inbox.migrate() runs the same file. Times are epoch milliseconds on the database's clock (UTC).

-- One row per message a consumer has dealt with. The claim is
-- INSERT IGNORE ... VALUES (...), (...) RETURNING message_id in the consumer's own transaction: a row
-- back means "new, process it"; none means "seen before". A duplicate key is skipped, never an error,
-- so it never disturbs the transaction. Ids compare byte for byte (nopad_bin collations).
CREATE TABLE IF NOT EXISTS idem_inbox (
    consumer   VARCHAR(200) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,  -- visible ASCII
    message_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    state      TINYINT NOT NULL,  -- 1 processed, 2 quarantined, 3 dropped from the quarantine
    seen_at    BIGINT  NOT NULL,  -- when it reached that state
    expires_at BIGINT  NOT NULL,  -- purged after this, except while quarantined (state 2)
    PRIMARY KEY (consumer, message_id),
    CONSTRAINT idem_inbox_state_check CHECK (state IN (1, 2, 3)),
    CONSTRAINT idem_inbox_id_length CHECK (CHAR_LENGTH(message_id) BETWEEN 1 AND 255)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS idem_inbox_expires_at_idx ON idem_inbox (expires_at);

-- Messages whose handler failed. While state is 0 the row is the message's durable attempt counter
-- (written in its own short transaction after the failed one rolled back) and expires like an inbox
-- row. At the configured number of attempts state becomes 1: quarantined, with the message's
-- payload, headers and last error, kept until an operator replays or drops it.
CREATE TABLE IF NOT EXISTS idem_quarantine (
    consumer      VARCHAR(200) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
    message_id    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    state         TINYINT NOT NULL,  -- 0 failing (counting attempts), 1 quarantined
    attempts      INT     NOT NULL,
    first_seen    BIGINT  NOT NULL,  -- first failure
    last_seen     BIGINT  NOT NULL,  -- last failure
    expires_at    BIGINT  NOT NULL,  -- for state 0 only
    error_class   TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    error_message TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,  -- the last error's message, truncated
    payload       LONGBLOB,
    headers       MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,  -- one escaped "name=value" line per header
    PRIMARY KEY (consumer, message_id),
    CONSTRAINT idem_quarantine_state_check CHECK (state IN (0, 1))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS idem_quarantine_expires_at_idx ON idem_quarantine (expires_at);
