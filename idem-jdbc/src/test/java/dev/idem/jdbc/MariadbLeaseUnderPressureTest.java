package dev.idem.jdbc;

class MariadbLeaseUnderPressureTest extends LeaseUnderPressureContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
