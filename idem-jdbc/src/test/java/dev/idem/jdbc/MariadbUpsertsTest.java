package dev.idem.jdbc;

class MariadbUpsertsTest extends UpsertsContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
