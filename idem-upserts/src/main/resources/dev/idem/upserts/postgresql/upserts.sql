-- idem: the PostgreSQL upsert templates; the shared ones are in ../common/upserts.sql.

-- name: upsert_inserted_flag
-- True for a row this statement inserted (a new tuple has no xmax), false for one it updated: one
-- statement tells inserted from updated, and no row back means the version guard refused it (stale).
(t.xmax = 0)
