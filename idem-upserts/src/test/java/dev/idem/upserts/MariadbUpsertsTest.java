package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class MariadbUpsertsTest extends UpsertsContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
