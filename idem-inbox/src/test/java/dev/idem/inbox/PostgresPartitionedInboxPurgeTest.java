package dev.idem.inbox;

import dev.idem.jdbc.testing.Backends;

class PostgresPartitionedInboxPurgeTest extends PartitionedInboxContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
