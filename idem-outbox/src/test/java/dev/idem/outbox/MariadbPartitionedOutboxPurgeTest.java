package dev.idem.outbox;

import dev.idem.jdbc.testing.Backends;

class MariadbPartitionedOutboxPurgeTest extends PartitionedOutboxContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
