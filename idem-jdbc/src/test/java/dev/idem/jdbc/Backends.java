package dev.idem.jdbc;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The real databases the JDBC store is tested on. */
enum Backends {
    POSTGRESQL {
        @Override
        TestDatabase open() {
            return RealServices.postgres();
        }
    },
    SQLITE {
        @Override
        TestDatabase open() {
            return RealServices.sqlite();
        }
    };

    abstract TestDatabase open();

    /** A migrated store on a fresh database of this backend. */
    static JdbcIdempotencyStore migratedStore(TestDatabase db) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
        return store;
    }
}
