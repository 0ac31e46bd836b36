package dev.idem.jdbc;

class PostgresUpsertsTest extends UpsertsContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
