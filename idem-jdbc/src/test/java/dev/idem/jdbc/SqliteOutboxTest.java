package dev.idem.jdbc;

class SqliteOutboxTest extends OutboxContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
