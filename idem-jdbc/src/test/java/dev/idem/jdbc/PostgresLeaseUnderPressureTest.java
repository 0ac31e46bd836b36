package dev.idem.jdbc;

class PostgresLeaseUnderPressureTest extends LeaseUnderPressureContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
