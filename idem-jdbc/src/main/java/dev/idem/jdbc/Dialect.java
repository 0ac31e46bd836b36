package dev.idem.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * A database's SQL for idem, as data: its statements in {@code dev/idem/jdbc/<name>/statements.sql}
 * (overriding, by name, the shared ones in {@code dev/idem/jdbc/common/statements.sql}) and numbered
 * migrations {@code V<n>__<description>.sql} beside them. Adding a database means adding one folder
 * and one constant.
 */
public enum Dialect {
    POSTGRESQL("postgresql", "PostgreSQL", Connection.TRANSACTION_READ_COMMITTED),
    /** One writer at a time, every transaction serializable: there is no level to choose. */
    SQLITE("sqlite", "SQLite", -1),
    /**
     * MariaDB 10.6 or later with InnoDB (it needs {@code INSERT … RETURNING} and {@code SKIP LOCKED}).
     * Only MariaDB is detected: MySQL differs in collations and {@code RETURNING} and is not supported.
     */
    MARIADB("mariadb", "MariaDB", Connection.TRANSACTION_REPEATABLE_READ);

    private final String folder;
    private final String displayName;
    private final int storeIsolation;

    Dialect(String folder, String displayName, int storeIsolation) {
        this.folder = folder;
        this.displayName = displayName;
        this.storeIsolation = storeIsolation;
    }

    /** The dialect for the connection's database, from its product name. */
    public static Dialect detect(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String normalized = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (normalized.contains("postgres")) {
            return POSTGRESQL;
        }
        if (normalized.contains("sqlite")) {
            return SQLITE;
        }
        if (normalized.contains("mariadb")) {
            return MARIADB;
        }
        throw new IllegalArgumentException("idem has no dialect for database '" + product
                + "'; supported: PostgreSQL, SQLite, MariaDB");
    }

    /** Resource folder holding this dialect's SQL, e.g. {@code dev/idem/jdbc/postgresql/}. */
    public String resourceFolder() {
        return "dev/idem/jdbc/" + folder + "/";
    }

    public String displayName() {
        return displayName;
    }

    /**
     * The isolation the key store's statements are written for (a {@code Connection.TRANSACTION_*}
     * constant, or -1 where the database has one level): on PostgreSQL READ COMMITTED, where an
     * {@code INSERT … ON CONFLICT} meeting a concurrent claim waits for it and sees its outcome instead
     * of failing as a serialization conflict; on MariaDB REPEATABLE READ, InnoDB's default, under
     * which the claim's locking reads were designed and tested. The store runs its own statements at
     * this level whatever the pool's default.
     */
    public int storeIsolation() {
        return storeIsolation;
    }
}
