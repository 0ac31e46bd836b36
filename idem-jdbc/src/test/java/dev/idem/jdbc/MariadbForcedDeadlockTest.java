package dev.idem.jdbc;

class MariadbForcedDeadlockTest extends ForcedDeadlockContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
