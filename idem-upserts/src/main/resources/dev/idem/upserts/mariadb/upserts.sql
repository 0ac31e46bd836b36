-- idem: the MariaDB upsert templates; the shared ones are in ../common/upserts.sql.
--
-- Why not INSERT ... ON DUPLICATE KEY UPDATE: its affected-row count is 1 for an insert and 2 for an
-- update, but with the connection flag Connector/J sets by default (CLIENT_FOUND_ROWS) a row that
-- matched and was left unchanged (a stale version) also counts 1, so inserted and stale could not be
-- told apart; and its assignments run left to right, each seeing the columns assigned before it, so
-- a version guard would have to sit in every assignment with the version column assigned last.
-- Instead: a plain INSERT, whose duplicate-key error (1062) InnoDB rolls back alone, leaving the
-- caller's transaction as it was; then, for an update, a plain UPDATE with the guard in its WHERE.

-- name: upsert_quote
`{identifier}`

-- name: upsert_insert_or_ignore
-- 1 row: inserted. A row with the key (or another unique key of the table) exists: error 1062 for
-- this statement only, told by its vendor code, and answered "not inserted".
INSERT INTO {table} ({columns}) VALUES ({values})

-- name: upsert_update
-- After the insert met the key. {set} is one upsert_set per non-key column, {match} one upsert_match
-- per key column, {guard} empty or upsert_update_guard. Parameters: the non-key values in the row's
-- order, the key values in the key's order, then the version. Rows matched: 1 updated; 0 stale, or
-- the row is gone (then upsert_exists says so and the insert runs again).
UPDATE {table} SET {set} WHERE {match}{guard}

-- name: upsert_set
{column} = ?

-- name: upsert_match
{column} = ?

-- name: upsert_update_guard
-- Apply only a newer version; an equal or older one (or a NULL on either side) leaves the row as it is.
 AND {version} < ?

-- name: upsert_exists
SELECT 1 FROM {table} WHERE {match}
