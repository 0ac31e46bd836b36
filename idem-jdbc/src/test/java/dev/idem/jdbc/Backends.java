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
    },
    MARIADB {
        @Override
        TestDatabase open() {
            return RealServices.mariadb();
        }

        /** MariaDB keys cannot be TEXT (unbounded) and quotes identifiers with backticks (no ANSI_QUOTES by default). */
        @Override
        String sql(String portable) {
            return TEXT.matcher(portable).replaceAll("VARCHAR(255)").replace('"', '`');
        }
    };

    private static final java.util.regex.Pattern TEXT = java.util.regex.Pattern.compile("(?i)\\btext\\b");

    abstract TestDatabase open();

    /** A test's own SQL (its tables, its checks) in this backend's words; the portable text elsewhere. */
    String sql(String portable) {
        return portable;
    }

    /** The dialect idem detects on this backend. */
    Dialect dialect() {
        return Dialect.valueOf(name());
    }

    /** A migrated store on a fresh database of this backend. */
    static JdbcIdempotencyStore migratedStore(TestDatabase db) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
        return store;
    }
}
