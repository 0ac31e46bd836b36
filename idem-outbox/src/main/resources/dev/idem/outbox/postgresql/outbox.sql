-- idem: the PostgreSQL outbox statements; the shared ones are in ../common/outbox.sql.

-- name: outbox_lease
-- One relay poll leases the heads (lowest pending sequence) of up to max_aggregates aggregates whose
-- head is neither leased nor backing off, plus up to per_aggregate events of each from the head on.
-- FOR UPDATE SKIP LOCKED makes concurrent relays take different heads; an aggregate's later events
-- are never heads while an earlier one is pending, so no other relay can take them either.
-- params: max_aggregates, owner, lease_ms, per_aggregate
WITH heads AS (
    {outbox_heads}
    FOR UPDATE OF o SKIP LOCKED
)
UPDATE idem_outbox e
SET lease_owner = ?, lease_until = {now_ms} + ?
FROM heads h
WHERE e.aggregate_type = h.aggregate_type AND e.aggregate_id = h.aggregate_id
  AND e.state = 0 AND e.sequence >= h.sequence AND e.sequence < h.sequence + ?

-- name: outbox_purge
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_outbox WHERE id = ANY (ARRAY(
    SELECT id FROM idem_outbox
    WHERE state = 1 AND expires_at >= ? AND expires_at <= {now_ms}
    ORDER BY expires_at
    LIMIT ? FOR UPDATE SKIP LOCKED))
RETURNING expires_at
