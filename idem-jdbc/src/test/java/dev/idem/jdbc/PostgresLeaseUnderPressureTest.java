package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;

class PostgresLeaseUnderPressureTest extends LeaseUnderPressureContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
