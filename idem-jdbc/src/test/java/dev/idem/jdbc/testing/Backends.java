package dev.idem.jdbc.testing;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The real databases the JDBC store is tested on. */
public enum Backends {
    POSTGRESQL {
        @Override
        public TestDatabase open() {
            return RealServices.postgres();
        }
    },
    SQLITE {
        @Override
        public TestDatabase open() {
            return RealServices.sqlite();
        }
    },
    MARIADB {
        @Override
        public TestDatabase open() {
            return RealServices.mariadb();
        }

        /** MariaDB keys cannot be TEXT (unbounded) and quotes identifiers with backticks (no ANSI_QUOTES by default). */
        @Override
        public String sql(String portable) {
            return TEXT.matcher(portable).replaceAll("VARCHAR(255)").replace('"', '`');
        }
    };

    private static final java.util.regex.Pattern TEXT = java.util.regex.Pattern.compile("(?i)\\btext\\b");

    public abstract TestDatabase open();

    /** A test's own SQL (its tables, its checks) in this backend's words; the portable text elsewhere. */
    public String sql(String portable) {
        return portable;
    }

    /** The dialect idem detects on this backend. */
    public Dialect dialect() {
        return Dialect.valueOf(name());
    }

    /** A migrated store on a fresh database of this backend. */
    public static JdbcIdempotencyStore migratedStore(TestDatabase db) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
        return store;
    }
}
