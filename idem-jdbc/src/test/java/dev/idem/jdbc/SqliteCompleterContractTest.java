package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.CompleterContract;
import dev.idem.testing.StoreFixture;
import dev.idem.testing.TestDatabase;

class SqliteCompleterContractTest extends StoreFixture implements CompleterContract {
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
