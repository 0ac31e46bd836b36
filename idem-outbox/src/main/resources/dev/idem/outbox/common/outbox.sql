-- idem: the outbox's statements every dialect shares unless its own outbox.sql overrides one by name.
-- Parameters are positional; each statement lists them in order, and an override must keep it.

-- name: outbox_next_sequence
-- In the business transaction. Locks the aggregate's counter row until that transaction ends.
-- params: aggregate_type, aggregate_id
INSERT INTO idem_outbox_sequence AS s (aggregate_type, aggregate_id, last_sequence)
VALUES (?, ?, 1)
ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = s.last_sequence + 1
RETURNING last_sequence

-- name: outbox_append
-- params: message_id, aggregate_type, aggregate_id, sequence, event_type, payload, headers
INSERT INTO idem_outbox
    (message_id, aggregate_type, aggregate_id, sequence, event_type, payload, headers, created_at,
     state, attempts, next_attempt_at, lease_until)
VALUES (?, ?, ?, ?, ?, ?, ?, {now_ms}, 0, 0, {now_ms}, 0)
RETURNING created_at

-- name: outbox_leased
-- What one relay poll leased (its owner token is unique per poll).
-- params: owner
SELECT id, message_id, aggregate_type, aggregate_id, sequence, event_type, payload, headers, created_at, attempts
FROM idem_outbox
WHERE lease_owner = ? AND state = 0
ORDER BY id

-- name: outbox_mark_sent
-- params: retention_ms, message_id
UPDATE idem_outbox
SET state = 1, sent_at = {now_ms}, expires_at = {now_ms} + ?, lease_owner = NULL, lease_until = 0, last_error = NULL
WHERE message_id = ? AND state = 0

-- name: outbox_mark_failed
-- The event stays the head of its aggregate, so the aggregate's later events wait for it.
-- params: delay_ms, last_error, message_id
UPDATE idem_outbox
SET attempts = attempts + 1, next_attempt_at = {now_ms} + ?, last_error = ?, lease_owner = NULL, lease_until = 0
WHERE message_id = ? AND state = 0

-- name: outbox_release
-- Ends a poll's leases on what it did not publish.
-- params: owner
UPDATE idem_outbox SET lease_owner = NULL, lease_until = 0
WHERE lease_owner = ? AND state = 0

-- name: outbox_pending
SELECT count(*) FROM idem_outbox WHERE state = 0

-- name: outbox_heads
-- Not run alone: the part of each dialect's relay lease that finds the heads (lowest pending
-- sequence) of up to max_aggregates aggregates whose head is neither leased nor backing off. An
-- aggregate's later events are never heads while an earlier one is pending. Each dialect adds its
-- own locking to it.
-- params: max_aggregates
SELECT o.aggregate_type, o.aggregate_id, o.sequence
FROM idem_outbox o
WHERE o.state = 0
  AND o.lease_until <= {now_ms}
  AND o.next_attempt_at <= {now_ms}
  AND NOT EXISTS (
      SELECT 1 FROM idem_outbox p
      WHERE p.aggregate_type = o.aggregate_type AND p.aggregate_id = o.aggregate_id
        AND p.state = 0 AND p.sequence < o.sequence)
ORDER BY o.id
LIMIT ?
