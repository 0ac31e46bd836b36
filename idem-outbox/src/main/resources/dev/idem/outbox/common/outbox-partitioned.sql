-- idem: the outbox's statements with retention by partition that PostgreSQL and MariaDB share; each
-- dialect's outbox-partitioned.sql has its table's layout.

-- name: outbox_now
-- The database's clock, which partition bounds and event times are on: the lag of a kept partition.
SELECT {now_ms}
