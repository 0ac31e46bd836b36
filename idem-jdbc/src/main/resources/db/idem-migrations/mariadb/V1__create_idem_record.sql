-- liquibase formatted sql
-- changeset idem:V1__create_idem_record
-- idem: idempotency records (MariaDB 10.6+, InnoDB). Plain SQL, safe to run by hand; idem's migrate() runs the same file.
-- Times are epoch milliseconds on the database's clock (UTC_TIMESTAMP), as in the other dialects: every
-- instance judges leases alike, and no session time zone ever enters a comparison.
-- Text that identifies a record compares byte for byte (a *_nopad_bin collation): the server's usual
-- default (utf8mb4_general_ci) would make 'Key' equal 'key' and 'alice' equal 'alice ', so one caller
-- could be answered with another's response.
-- MariaDB commits each CREATE at once (DDL is not transactional); every statement here is IF NOT EXISTS,
-- so a run that stopped half way is completed by the next.
CREATE TABLE IF NOT EXISTS idem_record (
    scope          VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    idem_key       VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,  -- keys are visible ASCII
    fingerprint    TEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    state          TINYINT  NOT NULL,  -- 0 in progress, 1 completed, 2 released (absent for claims)
    token          BIGINT   NOT NULL,  -- fencing token: grows with every acquisition of this record
    attempt        INT      NOT NULL,  -- 1, then +1 per takeover
    lease_until    BIGINT   NOT NULL,
    expires_at     BIGINT   NOT NULL,
    created_at     BIGINT   NOT NULL,
    recovery_phase TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    recovery_state LONGBLOB,
    status         INT,
    headers        MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    body           LONGBLOB,           -- a response body up to max_allowed_packet
    PRIMARY KEY (scope, idem_key),
    CONSTRAINT idem_record_state_check CHECK (state IN (0, 1, 2)),
    CONSTRAINT idem_record_key_length CHECK (CHAR_LENGTH(idem_key) BETWEEN 1 AND 255)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS idem_record_expires_at_idx ON idem_record (expires_at);
