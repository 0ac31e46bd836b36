package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdemEngineContract;
import dev.idem.testing.TestDatabase;
import java.time.Duration;

/** The engine on a store with retention by partition: leases renewed in batches, takeovers and fencing on the partitioned table. */
class MariadbPartitionedEngineContractTest extends IdemEngineContract {
    private TestDatabase db;

    @Override
    protected IdempotencyStore newStore() {
        db = Backends.MARIADB.open();
        JdbcIdempotencyStore store = reopenStore();
        store.migrate();
        return store;
    }

    @Override
    protected JdbcIdempotencyStore reopenStore() {
        return JdbcIdempotencyStore.builder(db.dataSource()).retentionByPartition(Duration.ofHours(6), Duration.ofDays(2)).build();
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
