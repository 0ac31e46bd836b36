package dev.idem.jdbc;

class SqliteWindowedTotalsTest extends WindowedTotalsContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
