package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;

class MariadbLeaseUnderPressureTest extends LeaseUnderPressureContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
