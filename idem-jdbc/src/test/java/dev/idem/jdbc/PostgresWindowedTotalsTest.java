package dev.idem.jdbc;

class PostgresWindowedTotalsTest extends WindowedTotalsContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
