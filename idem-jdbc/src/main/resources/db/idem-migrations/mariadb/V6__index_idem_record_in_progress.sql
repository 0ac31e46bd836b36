-- liquibase formatted sql
-- changeset idem:V6__index_idem_record_in_progress
-- idem: the records by state and lease end (MariaDB), for operators: the records past their lease and
-- the oldest in progress, without reading the whole table (MariaDB has no partial index).
CREATE INDEX IF NOT EXISTS idem_record_in_progress_idx ON idem_record (state, lease_until);
