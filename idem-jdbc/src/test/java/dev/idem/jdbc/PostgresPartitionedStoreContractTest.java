package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;

/** The store contract on PostgreSQL on a table partitioned by expiry (see PartitionedStoreContract). */
class PostgresPartitionedStoreContractTest extends PartitionedStoreContract {
    PostgresPartitionedStoreContractTest() {
        super(Backends.POSTGRESQL);
    }
}
