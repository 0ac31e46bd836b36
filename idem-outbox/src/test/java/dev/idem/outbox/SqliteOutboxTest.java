package dev.idem.outbox;

import dev.idem.jdbc.testing.Backends;

class SqliteOutboxTest extends OutboxContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
