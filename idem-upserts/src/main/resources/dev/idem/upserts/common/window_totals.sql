-- idem: the statements of windowed totals (dev.idem.jdbc.WindowedTotals), shared by every dialect
-- unless its own window_totals.sql overrides one by name. Parameters are positional; each statement
-- lists them in order, and an override must keep it.

-- name: window_lock_aggregate
-- First in every recomputation's transaction: creates the aggregate's row or counts one more run on
-- it. The written row stays locked until the transaction ends (PostgreSQL; SQLite holds its one
-- write lock anyway), so recomputations of one aggregate take turns and each reads the rows the
-- previous one committed. Returns the window length the aggregate was first computed with.
-- params: aggregate_name, window_ms
INSERT INTO idem_window_total_aggregate AS a (aggregate_name, window_ms, runs, last_run_at)
VALUES (?, ?, 1, {now_ms})
ON CONFLICT (aggregate_name) DO UPDATE SET runs = a.runs + 1, last_run_at = excluded.last_run_at
RETURNING window_ms

-- name: window_range
-- The totals of the windows starting in [from, to); the caller orders them.
-- params: aggregate_name, from_ms, to_ms
SELECT window_start, group_key, event_count, amount_sum
FROM idem_window_total
WHERE aggregate_name = ? AND window_start >= ? AND window_start < ?

-- name: window_upsert
-- Writes the totals of a window and group that are new or changed; unchanged ones are never written.
-- params: aggregate_name, window_start, group_key, event_count, amount_sum
INSERT INTO idem_window_total (aggregate_name, window_start, group_key, event_count, amount_sum, updated_at)
VALUES (?, ?, ?, ?, ?, {now_ms})
ON CONFLICT (aggregate_name, window_start, group_key) DO UPDATE SET
    event_count = excluded.event_count,
    amount_sum  = excluded.amount_sum,
    updated_at  = excluded.updated_at

-- name: window_delete
-- A window and group of the range that the recomputed input no longer has.
-- params: aggregate_name, window_start, group_key
DELETE FROM idem_window_total WHERE aggregate_name = ? AND window_start = ? AND group_key = ?
