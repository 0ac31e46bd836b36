package dev.idem.jdbc;

class PostgresOutboxTest extends OutboxContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
