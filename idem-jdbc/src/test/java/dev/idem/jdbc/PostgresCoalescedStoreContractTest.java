package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.TestDatabase;

/** The store contract on PostgreSQL with coalesced commits switched on (off by default there), so the batched claim is held to it too. */
class PostgresCoalescedStoreContractTest extends IdempotencyStoreContract {
    private TestDatabase db;

    @Override
    protected IdempotencyStore newStore() {
        db = Backends.POSTGRESQL.open();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).coalesceCommits(true).build();
        assertThat(store.coalescesCommits()).isTrue();
        store.migrate();
        return store;
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
