-- idem: the MariaDB outbox statements; the shared ones are in ../common/outbox.sql (append's
-- INSERT ... RETURNING runs here as it is). Parameters keep the shared statements' order. The relay's
-- lease, release and purge run at READ COMMITTED (Dialect.scansReadCommitted says why).

-- name: outbox_next_sequence
-- In the business transaction. Locks the aggregate's counter row until that transaction ends.
-- RETURNING reads the row as written: 1 when inserted, the incremented value when updated.
-- params: aggregate_type, aggregate_id
INSERT INTO idem_outbox_sequence (aggregate_type, aggregate_id, last_sequence)
VALUES (?, ?, 1)
ON DUPLICATE KEY UPDATE last_sequence = last_sequence + 1
RETURNING last_sequence

-- name: outbox_lease_heads
-- A relay poll's first step (MariaDB has no UPDATE ... FROM a locking CTE): the heads (lowest
-- pending sequence) of up to max_aggregates aggregates whose head is neither leased nor backing off,
-- locked until the poll's lease transaction commits. SKIP LOCKED makes concurrent relays take
-- different heads. The NOT EXISTS subquery is a plain (non-locking) read, so an earlier event that
-- another relay has locked still counts as pending: a later event is never taken for a head while
-- an earlier one waits, and so no two relays ever hold events of one aggregate.
-- params: max_aggregates
{outbox_heads}
FOR UPDATE SKIP LOCKED

-- name: outbox_lease_aggregate
-- The second step, once per head, in the same transaction: leases the head and up to per_aggregate
-- events from it on.
-- params: owner, lease_ms, aggregate_type, aggregate_id, head_sequence, head_sequence, per_aggregate
UPDATE idem_outbox
SET lease_owner = ?, lease_until = {now_ms} + ?
WHERE aggregate_type = ? AND aggregate_id = ? AND state = 0 AND sequence >= ? AND sequence < ? + ?

-- name: outbox_purge
-- Sent events past retention, at most ? per statement; never a pending one.
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_outbox
WHERE state = 1 AND expires_at >= ? AND expires_at <= {now_ms}
ORDER BY expires_at
LIMIT ?
RETURNING expires_at
