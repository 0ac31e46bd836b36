-- liquibase formatted sql
-- changeset idem:V4__create_idem_window_total
-- idem: windowed totals, the sink of an idempotent stream transformation (PostgreSQL). Plain SQL,
-- safe to run by hand after V3; WindowedTotals.migrate() runs the same file. Times are epoch
-- milliseconds; window starts are multiples of the aggregate's window length (tumbling windows
-- aligned to the Unix epoch).

-- One row per aggregate, window and group: how many distinct events fell in it and the sum of their
-- amounts. A recomputation overwrites the rows of its range: it writes the rows whose totals changed
-- or are new, deletes those whose group no longer occurs, and leaves the others as they are, so
-- running it again on the same input changes nothing.
CREATE TABLE IF NOT EXISTS idem_window_total (
    aggregate_name text   NOT NULL,  -- the aggregate's name, e.g. charges_per_minute
    window_start   bigint NOT NULL,
    group_key      text   NOT NULL,
    event_count    bigint NOT NULL CHECK (event_count > 0),  -- a window and group without events has no row
    amount_sum     bigint NOT NULL,
    updated_at     bigint NOT NULL,  -- when a recomputation last wrote these totals (database clock)
    PRIMARY KEY (aggregate_name, window_start, group_key)
);

-- One row per aggregate. Every recomputation of the aggregate locks it first (an upsert that counts
-- the run), so recomputations of one aggregate take turns; it also keeps the window length, so an
-- aggregate is never recomputed with windows of another length.
CREATE TABLE IF NOT EXISTS idem_window_total_aggregate (
    aggregate_name text   PRIMARY KEY,
    window_ms      bigint NOT NULL CHECK (window_ms > 0),
    runs           bigint NOT NULL,  -- recomputations committed
    last_run_at    bigint NOT NULL
);
