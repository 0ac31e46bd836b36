-- liquibase formatted sql
-- changeset idem:V4__create_idem_window_total
-- idem: windowed totals, the sink of an idempotent stream transformation (SQLite). Plain SQL, safe
-- to run by hand after V3; WindowedTotals.migrate() runs the same file. Times are epoch
-- milliseconds; window starts are multiples of the aggregate's window length.

-- One row per aggregate, window and group; a recomputation overwrites the rows of its range.
CREATE TABLE IF NOT EXISTS idem_window_total (
    aggregate_name TEXT    NOT NULL,
    window_start   INTEGER NOT NULL,
    group_key      TEXT    NOT NULL,
    event_count    INTEGER NOT NULL CHECK (event_count > 0),
    amount_sum     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (aggregate_name, window_start, group_key)
);

-- One row per aggregate: its window length and the run counter every recomputation updates first.
CREATE TABLE IF NOT EXISTS idem_window_total_aggregate (
    aggregate_name TEXT    PRIMARY KEY,
    window_ms      INTEGER NOT NULL CHECK (window_ms > 0),
    runs           INTEGER NOT NULL,
    last_run_at    INTEGER NOT NULL
);
