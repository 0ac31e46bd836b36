-- idem: the MariaDB inbox statements; the shared ones are in ../common/inbox.sql. Parameters keep
-- the shared statements' order.

-- name: inbox_claim
-- The claim, in the consumer's transaction: returns the ids that were new (RETURNING lists the rows
-- inserted, never the ones IGNORE skipped). A key that exists (processed, quarantined or dropped) is
-- skipped without an error, so the transaction goes on; a concurrent uncommitted claim of the same
-- id makes this statement wait for that transaction, then skip or insert. IGNORE would also turn a
-- value too long for its column into a warning, but every value is validated to fit before it is bound.
INSERT IGNORE INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
VALUES {rows}
RETURNING message_id

-- name: inbox_count_failure
-- In its own short transaction after the consumer's rolled back. Answers the attempts counted, or -1
-- when the message is already quarantined (state 1), which this statement then leaves as it is.
-- MariaDB's ON DUPLICATE KEY UPDATE has no WHERE: each assignment carries the state = 0 condition
-- instead; state itself is never assigned, so every condition reads the stored state.
-- params: consumer, message_id, retention_ms, error_class, error_message, payload, headers
INSERT INTO idem_quarantine
    (consumer, message_id, state, attempts, first_seen, last_seen, expires_at, error_class, error_message, payload, headers)
VALUES (?, ?, 0, 1, {now_ms}, {now_ms}, {now_ms} + ?, ?, ?, ?, ?)
ON DUPLICATE KEY UPDATE
    attempts      = IF(state = 0, attempts + 1, attempts),
    last_seen     = IF(state = 0, VALUES(last_seen), last_seen),
    expires_at    = IF(state = 0, VALUES(expires_at), expires_at),
    error_class   = IF(state = 0, VALUES(error_class), error_class),
    error_message = IF(state = 0, VALUES(error_message), error_message),
    payload       = IF(state = 0, VALUES(payload), payload),
    headers       = IF(state = 0, VALUES(headers), headers)
RETURNING IF(state = 0, attempts, -1)

-- name: inbox_quarantine_claim
-- Same transaction as inbox_count_failure: stops every later delivery from running the handler.
-- Skipped (0 rows) if another delivery of the message was processed meanwhile.
-- params: consumer, message_id
INSERT IGNORE INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
VALUES (?, ?, 2, {now_ms}, 9223372036854775807)

-- name: inbox_purge
-- Expired processed and dropped rows, never a quarantined one; at most ? per statement.
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_inbox
WHERE expires_at >= ? AND expires_at <= {now_ms} AND state <> 2
ORDER BY expires_at
LIMIT ?
RETURNING expires_at

-- name: inbox_purge_failures
-- Expired attempt counters (state 0), never a quarantined message.
-- params: the lowest expiry to look at (where the last full batch ended), limit; returns the deleted rows' expiries
DELETE FROM idem_quarantine
WHERE expires_at >= ? AND expires_at <= {now_ms} AND state = 0
ORDER BY expires_at
LIMIT ?
RETURNING expires_at
