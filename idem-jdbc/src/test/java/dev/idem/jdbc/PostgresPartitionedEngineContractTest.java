package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;

/** The engine on a store with retention by partition on PostgreSQL (see PartitionedEngineContract). */
class PostgresPartitionedEngineContractTest extends PartitionedEngineContract {
    PostgresPartitionedEngineContractTest() {
        super(Backends.POSTGRESQL);
    }
}
