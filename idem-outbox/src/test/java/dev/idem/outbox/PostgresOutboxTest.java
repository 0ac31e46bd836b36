package dev.idem.outbox;

import dev.idem.jdbc.testing.Backends;

class PostgresOutboxTest extends OutboxContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
