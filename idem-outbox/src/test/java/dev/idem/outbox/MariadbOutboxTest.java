package dev.idem.outbox;

import dev.idem.jdbc.testing.Backends;

class MariadbOutboxTest extends OutboxContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
