-- idem: the MariaDB statements of windowed totals; the shared ones are in ../common/window_totals.sql.
-- Parameters keep the shared statements' order.

-- name: window_lock_aggregate
-- First in every recomputation's transaction: creates the aggregate's row or counts one more run on
-- it. The row stays exclusively locked until the transaction ends, so recomputations of one
-- aggregate take turns. RETURNING reads the row as stored: the window length the aggregate was
-- first computed with (an update never changes it).
-- params: aggregate_name, window_ms
INSERT INTO idem_window_total_aggregate (aggregate_name, window_ms, runs, last_run_at)
VALUES (?, ?, 1, {now_ms})
ON DUPLICATE KEY UPDATE runs = runs + 1, last_run_at = VALUES(last_run_at)
RETURNING window_ms

-- name: window_range_locked
-- The range's rows as a recomputation reads them, after window_lock_aggregate. A locking read sees
-- the newest committed rows: under REPEATABLE READ a plain read could answer from a snapshot the
-- caller's transaction took before the previous recomputation committed, and the differences
-- written from it would be wrong.
-- params: aggregate_name, from_ms, to_ms
SELECT window_start, group_key, event_count, amount_sum
FROM idem_window_total
WHERE aggregate_name = ? AND window_start >= ? AND window_start < ?
FOR UPDATE

-- name: window_upsert
-- Writes the totals of a window and group that are new or changed (the primary key is the table's
-- only unique key, so the update can only meet that row).
-- params: aggregate_name, window_start, group_key, event_count, amount_sum
INSERT INTO idem_window_total (aggregate_name, window_start, group_key, event_count, amount_sum, updated_at)
VALUES (?, ?, ?, ?, ?, {now_ms})
ON DUPLICATE KEY UPDATE
    event_count = VALUES(event_count),
    amount_sum  = VALUES(amount_sum),
    updated_at  = VALUES(updated_at)
