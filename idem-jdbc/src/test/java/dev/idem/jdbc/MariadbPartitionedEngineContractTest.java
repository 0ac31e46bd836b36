package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;

/** The engine on a store with retention by partition on MariaDB (see PartitionedEngineContract). */
class MariadbPartitionedEngineContractTest extends PartitionedEngineContract {
    MariadbPartitionedEngineContractTest() {
        super(Backends.MARIADB);
    }
}
