package dev.idem.jdbc;

import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdemEngineContract;
import dev.idem.testing.TestDatabase;

class MariadbEngineContractTest extends IdemEngineContract {
    private TestDatabase db;

    @Override
    protected IdempotencyStore newStore() {
        db = Backends.MARIADB.open();
        return Backends.migratedStore(db);
    }

    @Override
    protected IdempotencyStore reopenStore() {
        return JdbcIdempotencyStore.builder(db.dataSource()).build();
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
