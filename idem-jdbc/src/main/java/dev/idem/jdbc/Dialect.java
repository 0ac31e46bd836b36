package dev.idem.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * A database's SQL for idem, as data, and what the key store needs done differently, as explicit
 * capabilities. Each JDBC module keeps its statements in {@code <its package>/<name>/<file>.sql}
 * (overriding, by name, the shared ones in {@code <its package>/common/<file>.sql}) and its numbered
 * migrations {@code V<n>__<description>.sql} beside them; idem-jdbc's own are {@code statements.sql}
 * and the records' migration under {@code dev/idem/jdbc/<name>/}. Adding a database means adding one
 * folder per module and one constant; a component refuses at {@code build()} a dialect whose files
 * lack a statement it runs. A module whose statements differ by database states its own capabilities
 * with an exhaustive {@code switch} over this enum, so that a new constant is a compile error wherever a
 * capability has not been decided yet.
 */
public enum Dialect {
    POSTGRESQL("postgresql", "PostgreSQL", Connection.TRANSACTION_READ_COMMITTED),
    /** One writer at a time, every transaction serializable: there is no isolation level to choose. */
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

    // The key store's own capabilities (this package only); each module with statements that differ by
    // database decides its own the same way, with an exhaustive switch over the constants.

    /**
     * Whether a claim of an existing key takes three steps ({@code claim}, {@code claim_takeover_update},
     * {@code claim_taken}), ending its transaction between them to drop the shared lock the duplicate
     * check took (MariaDB); elsewhere one {@code claim} statement takes over in place.
     */
    boolean claimsInThreeSteps() {
        return switch (this) {
            case MARIADB -> true;
            case POSTGRESQL, SQLITE -> false;
        };
    }

    /**
     * Whether an {@code UPDATE} reports changed rather than matched rows (MariaDB without
     * {@code useAffectedRows=false}), so that a write that changed nothing asks {@code token_held}
     * whether the token was still current.
     */
    boolean countsChangedRows() {
        return switch (this) {
            case MARIADB -> true;
            case POSTGRESQL, SQLITE -> false;
        };
    }

    /**
     * Whether a claim in the caller's transaction may roll that transaction back (MariaDB), so that
     * {@code transaction_has_work} first refuses a transaction that already did work.
     */
    boolean guardsCallersTransaction() {
        return switch (this) {
            case MARIADB -> true;
            case POSTGRESQL, SQLITE -> false;
        };
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

    /**
     * Whether the key store coalesces concurrent claims and completions into shared commits unless told
     * otherwise ({@code JdbcIdempotencyStore.Builder#coalesceCommits}): only on SQLite, one writer at a
     * time, where a write waits for its commit. Not on PostgreSQL, which already shares the disk flush
     * of concurrent commits, so one batch in flight at a time only serialises what the server would run
     * side by side; not on MariaDB either, where it measured slower (figures in docs/performance.md,
     * "Coalesced commits").
     */
    public boolean coalescesCommitsByDefault() {
        return switch (this) {
            case SQLITE -> true;
            case POSTGRESQL, MARIADB -> false;
        };
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

    /** Resource folder of idem-jdbc's own SQL for this dialect, e.g. {@code dev/idem/jdbc/postgresql/}. */
    public String resourceFolder() {
        return "dev/idem/jdbc/" + folder + "/";
    }

    public String displayName() {
        return displayName;
    }
}
