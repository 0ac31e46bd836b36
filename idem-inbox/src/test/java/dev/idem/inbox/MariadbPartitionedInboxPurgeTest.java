package dev.idem.inbox;

import dev.idem.jdbc.testing.Backends;

class MariadbPartitionedInboxPurgeTest extends PartitionedInboxContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
