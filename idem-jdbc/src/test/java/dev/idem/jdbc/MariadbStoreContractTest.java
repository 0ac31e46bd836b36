package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.StoreAdministrationContract;
import dev.idem.testing.TestDatabase;

/** The store contract on MariaDB with coalesced commits switched on (off by default there), so the batched claim is held to it too. */
class MariadbStoreContractTest extends IdempotencyStoreContract implements StoreAdministrationContract {
    private TestDatabase db;

    @Override
    protected IdempotencyStore newStore() {
        db = Backends.MARIADB.open();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).coalesceCommits(true).build();
        store.migrate();
        return store;
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
