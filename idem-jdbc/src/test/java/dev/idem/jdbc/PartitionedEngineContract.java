package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdemEngineContract;
import dev.idem.testing.TestDatabase;
import java.time.Duration;

/** The engine on a store with retention by partition: leases renewed in batches, takeovers and fencing on the partitioned table, on one backend per subclass. */
abstract class PartitionedEngineContract extends IdemEngineContract {
    private final Backends backend;
    private TestDatabase db;

    PartitionedEngineContract(Backends backend) {
        this.backend = backend;
    }

    @Override
    protected IdempotencyStore newStore() {
        db = backend.open();
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
