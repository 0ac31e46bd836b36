package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.TestDatabase;
import java.time.Duration;

/**
 * The store contract on a table partitioned by expiry (retention by partition), hourly partitions
 * made an hour ahead, on one backend per subclass. The contract counts purged rows exactly, so its
 * purge deletes expired rows between drops too; dropping partitions is held to the contract in
 * PostgresRetentionPartitionsTest.
 */
abstract class PartitionedStoreContract extends IdempotencyStoreContract {
    private final Backends backend;
    private TestDatabase db;

    PartitionedStoreContract(Backends backend) {
        this.backend = backend;
    }

    @Override
    protected IdempotencyStore newStore() {
        db = backend.open();
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
