-- idem: the inbox's statements every dialect shares unless its own inbox.sql overrides one by name.
-- {now_ms} is the database clock in epoch milliseconds. {rows} and {ids} are expanded by the inbox
-- to as many row templates or ? as the statement has messages. Parameters are positional; each
-- statement lists them in order, and a dialect's override must keep that order.
-- 9223372036854775807 (the largest bigint) is "never expires": quarantined rows sort last in the
-- expires_at index, so purges never walk over them.

-- name: inbox_claim
-- The claim, in the consumer's transaction: returns the ids that were new. A conflicting row
-- (processed, quarantined or dropped) is skipped without an error; a concurrent uncommitted claim
-- of the same id makes this statement wait for that transaction, then skip or insert.
-- A dialect whose driver binds arrays may write it without {rows}, one statement for any number of
-- ids: then its params are consumer, retention_ms and all the ids as one value (see postgresql/).
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
VALUES {rows}
ON CONFLICT (consumer, message_id) DO NOTHING
RETURNING message_id

-- name: inbox_claim_row
-- params: consumer, message_id, retention_ms
(?, ?, 1, {now_ms}, {now_ms} + ?)

-- name: inbox_states
-- params: consumer, then the ids
SELECT message_id, state FROM idem_inbox WHERE consumer = ? AND message_id IN ({ids})

-- name: inbox_count_failure
-- In its own short transaction after the consumer's rolled back. No row back: already quarantined.
-- params: consumer, message_id, retention_ms, error_class, error_message, payload, headers
INSERT INTO idem_quarantine AS q
    (consumer, message_id, state, attempts, first_seen, last_seen, expires_at, error_class, error_message, payload, headers)
VALUES (?, ?, 0, 1, {now_ms}, {now_ms}, {now_ms} + ?, ?, ?, ?, ?)
ON CONFLICT (consumer, message_id) DO UPDATE SET
    attempts      = q.attempts + 1,
    last_seen     = excluded.last_seen,
    expires_at    = excluded.expires_at,
    error_class   = excluded.error_class,
    error_message = excluded.error_message,
    payload       = excluded.payload,
    headers       = excluded.headers
WHERE q.state = 0
RETURNING attempts

-- name: inbox_quarantine_claim
-- Same transaction as inbox_count_failure: stops every later delivery from running the handler.
-- Skipped (0 rows) if another delivery of the message was processed meanwhile.
-- params: consumer, message_id
INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at)
VALUES (?, ?, 2, {now_ms}, 9223372036854775807)
ON CONFLICT (consumer, message_id) DO NOTHING

-- name: inbox_quarantine_mark
-- params: consumer, message_id
UPDATE idem_quarantine SET state = 1, expires_at = 9223372036854775807
WHERE consumer = ? AND message_id = ? AND state = 0

-- name: inbox_list_quarantined
-- params: consumer, limit
SELECT message_id, attempts, first_seen, last_seen, error_class, error_message, payload, headers
FROM idem_quarantine
WHERE consumer = ? AND state = 1
ORDER BY first_seen, message_id
LIMIT ?

-- name: inbox_find_quarantined
-- params: consumer, message_id
SELECT message_id, attempts, first_seen, last_seen, error_class, error_message, payload, headers
FROM idem_quarantine
WHERE consumer = ? AND message_id = ? AND state = 1

-- name: inbox_release_quarantined
-- Replay and drop, in their transaction: the quarantined inbox row becomes processed (1) or
-- dropped (3) and expires like any other. 0 rows: not quarantined (any more).
-- params: new_state, retention_ms, consumer, message_id
UPDATE idem_inbox SET state = ?, seen_at = {now_ms}, expires_at = {now_ms} + ?
WHERE consumer = ? AND message_id = ? AND state = 2

-- name: inbox_quarantine_delete
-- params: consumer, message_id
DELETE FROM idem_quarantine WHERE consumer = ? AND message_id = ?

-- name: inbox_replay_failure
-- A replay whose handler failed: the message stays quarantined with one more attempt.
-- params: error_class, error_message, consumer, message_id
UPDATE idem_quarantine SET attempts = attempts + 1, last_seen = {now_ms}, error_class = ?, error_message = ?
WHERE consumer = ? AND message_id = ? AND state = 1
