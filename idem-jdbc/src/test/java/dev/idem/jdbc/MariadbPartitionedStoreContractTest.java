package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.TestDatabase;
import java.time.Duration;

/** The store contract on MariaDB on a RANGE-partitioned table (see PostgresPartitionedStoreContractTest for why rows are purged too). */
class MariadbPartitionedStoreContractTest extends IdempotencyStoreContract {
    private TestDatabase db;

    @Override
    protected IdempotencyStore newStore() {
        db = Backends.MARIADB.open();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource())
                .retentionByPartition(Duration.ofHours(1), Duration.ofHours(1)).purgeRowsBetweenDrops(true).build();
        store.migrate();
        if (!store.retentionPartitions().orElseThrow().partitioned()) {
            throw new AssertionError("migrate() did not create the table partitioned");
        }
        return store;
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
