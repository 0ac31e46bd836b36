-- idem: templates for natural-key upserts (dev.idem.jdbc.Upserts), shared unless a dialect's own
-- upserts.sql overrides one by name. {table}, {columns}, {keys}, {column}, {version} are validated,
-- quoted identifiers ({table} may be schema.table); {values} is one ? per column, bound in order.

-- name: upsert_quote
-- How the dialect quotes an identifier ({identifier} is [a-z_][a-z0-9_]*, never containing a quote).
"{identifier}"

-- name: upsert_insert_or_ignore
-- 1 row changed: inserted; 0: a row with that key exists and was left alone. Never raises a unique
-- violation for the key, so it never aborts the caller's transaction.
INSERT INTO {table} ({columns}) VALUES ({values})
ON CONFLICT ({keys}) DO NOTHING

-- name: upsert_insert_or_update
-- {guard} is empty or upsert_version_guard; {returning} is empty or "RETURNING <upsert_inserted_flag>".
-- Without a flag the dialect runs upsert_insert_or_ignore first: 1 row inserted; else this statement:
-- 1 row updated, 0 stale.
INSERT INTO {table} AS t ({columns}) VALUES ({values})
ON CONFLICT ({keys}) DO UPDATE SET {assignments}
{guard}
{returning}

-- name: upsert_assignment
{column} = excluded.{column}

-- name: upsert_version_guard
-- Apply only a newer version; an equal or older one (or a NULL on either side) leaves the row as it is.
WHERE excluded.{version} > t.{version}
