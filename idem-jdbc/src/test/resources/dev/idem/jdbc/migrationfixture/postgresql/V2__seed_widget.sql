-- Not idempotent on purpose: applied twice, it fails on the primary key.
INSERT INTO widget (id, name) VALUES ('w-1', 'first');
