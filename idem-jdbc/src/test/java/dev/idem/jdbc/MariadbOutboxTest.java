package dev.idem.jdbc;

class MariadbOutboxTest extends OutboxContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
