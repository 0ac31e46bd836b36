-- idem: what operators read of the outbox (Outbox.backlog): counts, ages and the rows the relay keeps
-- failing on; never a payload or headers. The destination is the aggregate type, which relays route by.

-- name: admin_outbox_totals
SELECT count(*) AS pending, min(created_at) AS oldest, {now_ms} AS now_ms FROM idem_outbox WHERE state = 0

-- name: admin_outbox_destinations
-- params: limit
SELECT aggregate_type, count(*) AS pending, min(created_at) AS oldest, max(attempts) AS max_attempts
FROM idem_outbox WHERE state = 0
GROUP BY aggregate_type
ORDER BY min(created_at), aggregate_type
LIMIT ?

-- name: admin_outbox_failing
-- params: limit
SELECT id, message_id, aggregate_type, aggregate_id, sequence, event_type, attempts, created_at, next_attempt_at, last_error
FROM idem_outbox WHERE state = 0 AND attempts > 0
ORDER BY attempts DESC, id
LIMIT ?
