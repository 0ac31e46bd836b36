package dev.idem.jdbc;

class SqliteUpsertsTest extends UpsertsContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
