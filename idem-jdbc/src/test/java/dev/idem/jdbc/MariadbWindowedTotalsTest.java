package dev.idem.jdbc;

class MariadbWindowedTotalsTest extends WindowedTotalsContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
