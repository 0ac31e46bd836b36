package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.TestDatabase;

/** The store contract with coalesced commits switched off: every call commits on its own, as before coalescing. */
class PostgresUncoalescedStoreContractTest extends IdempotencyStoreContract {
    private TestDatabase db;

    @Override
    protected IdempotencyStore newStore() {
        db = Backends.POSTGRESQL.open();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).coalesceCommits(false).build();
        assertThat(store.coalescesCommits()).isFalse();
        store.migrate();
        return store;
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
