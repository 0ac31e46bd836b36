package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;

/** The store contract on MariaDB on a table partitioned by expiry (see PartitionedStoreContract). */
class MariadbPartitionedStoreContractTest extends PartitionedStoreContract {
    MariadbPartitionedStoreContractTest() {
        super(Backends.MARIADB);
    }
}
