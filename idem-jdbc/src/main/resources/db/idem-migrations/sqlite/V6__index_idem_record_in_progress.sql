-- liquibase formatted sql
-- changeset idem:V6__index_idem_record_in_progress
-- idem: the records in progress by lease end (SQLite), for operators: the records past their lease and
-- the oldest in progress, without reading the whole table. Partial: only in-progress rows are in it.
CREATE INDEX IF NOT EXISTS idem_record_in_progress_idx ON idem_record (lease_until) WHERE state = 0;
