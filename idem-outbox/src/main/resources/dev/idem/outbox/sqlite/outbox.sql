-- idem: the SQLite outbox statements; the shared ones are in ../common/outbox.sql.

-- name: outbox_lease
-- As PostgreSQL's, without row locks: SQLite runs one writer at a time, so the lease is a
-- conditional update no other relay can interleave with.
-- params: max_aggregates, owner, lease_ms, per_aggregate
WITH heads AS (
    {outbox_heads}
)
UPDATE idem_outbox
SET lease_owner = ?, lease_until = {now_ms} + ?
WHERE id IN (
    SELECT e.id FROM idem_outbox e JOIN heads h
      ON e.aggregate_type = h.aggregate_type AND e.aggregate_id = h.aggregate_id
    WHERE e.state = 0 AND e.sequence >= h.sequence AND e.sequence < h.sequence + ?)

-- name: outbox_purge
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_outbox WHERE id IN (
    SELECT id FROM idem_outbox
    WHERE state = 1 AND expires_at >= ? AND expires_at <= {now_ms}
    ORDER BY expires_at
    LIMIT ?)
RETURNING expires_at
