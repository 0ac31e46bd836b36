package dev.idem.outbox;

import dev.idem.jdbc.testing.Backends;

class PostgresPartitionedOutboxPurgeTest extends PartitionedOutboxContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
