-- The demo's payments: one row per payment, found again by its request key after a crash.
CREATE TABLE IF NOT EXISTS payment (
    id VARCHAR(40) PRIMARY KEY,
    request_key VARCHAR(128) NOT NULL UNIQUE,
    amount BIGINT NOT NULL,
    currency VARCHAR(3) NOT NULL,
    card VARCHAR(64) NOT NULL,
    status VARCHAR(16) NOT NULL,
    charge_id VARCHAR(128),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
