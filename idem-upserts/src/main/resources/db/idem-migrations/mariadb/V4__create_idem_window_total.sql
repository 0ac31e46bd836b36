-- liquibase formatted sql
-- changeset idem:V4__create_idem_window_total
-- idem: windowed totals, the sink of an idempotent stream transformation (MariaDB 10.6+, InnoDB). Plain
-- SQL, safe to run by hand after V3; WindowedTotals.migrate() runs the same file. Times are epoch
-- milliseconds; window starts are multiples of the aggregate's window length (tumbling windows
-- aligned to the Unix epoch). Groups compare byte for byte: 'EUR' and 'eur' are two groups.

-- One row per aggregate, window and group; a recomputation overwrites the rows of its range.
CREATE TABLE IF NOT EXISTS idem_window_total (
    aggregate_name VARCHAR(100) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
    window_start   BIGINT NOT NULL,
    group_key      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    event_count    BIGINT NOT NULL CHECK (event_count > 0),  -- a window and group without events has no row
    amount_sum     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,  -- when a recomputation last wrote these totals (database clock)
    PRIMARY KEY (aggregate_name, window_start, group_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- One row per aggregate: its window length and the run counter every recomputation updates first,
-- which locks the row, so recomputations of one aggregate take turns.
CREATE TABLE IF NOT EXISTS idem_window_total_aggregate (
    aggregate_name VARCHAR(100) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
    window_ms      BIGINT NOT NULL CHECK (window_ms > 0),
    runs           BIGINT NOT NULL,  -- recomputations committed
    last_run_at    BIGINT NOT NULL,
    PRIMARY KEY (aggregate_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
