package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class MariadbForcedDeadlockTest extends ForcedDeadlockContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
