package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.StoreAdministrationContract;
import dev.idem.testing.TestDatabase;

class SqliteStoreContractTest extends IdempotencyStoreContract implements StoreAdministrationContract {
    private TestDatabase db;

    @Override
    protected IdempotencyStore newStore() {
        db = Backends.SQLITE.open();
        return Backends.migratedStore(db);
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
