package dev.idem.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The SQLite settings idem relies on, as a JDBC URL for the xerial driver. */
public final class Sqlite {
    /** How long a writer waits for another's lock before failing. */
    public static final int BUSY_TIMEOUT_MILLIS = 10_000;

    private Sqlite() {
    }

    /**
     * A URL for {@code file} with WAL journaling (readers never block the writer),
     * {@code synchronous=FULL} (a committed claim survives power loss), a busy timeout, and
     * transactions that take the write lock when they begin, so two transactions never deadlock
     * upgrading a read lock.
     */
    public static String url(Path file) {
        return "jdbc:sqlite:" + file.toAbsolutePath()
                + "?journal_mode=WAL&synchronous=FULL&busy_timeout=" + BUSY_TIMEOUT_MILLIS
                + "&transaction_mode=IMMEDIATE";
    }

    /**
     * Refuses a SQLite connection without the settings idem relies on.
     *
     * @throws IllegalStateException if SQLite is not in WAL mode with synchronous=FULL and a busy timeout
     */
    static void checkSettings(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            String journal = single(st, "PRAGMA journal_mode");
            String synchronous = single(st, "PRAGMA synchronous");
            String busy = single(st, "PRAGMA busy_timeout");
            boolean memory = "memory".equalsIgnoreCase(journal);
            if (!memory && !"wal".equalsIgnoreCase(journal) || !"2".equals(synchronous) && !"3".equals(synchronous) || "0".equals(busy)) {
                throw new IllegalStateException("SQLite must run with journal_mode=WAL, synchronous=FULL and a busy timeout"
                        + " (found journal_mode=" + journal + ", synchronous=" + synchronous + ", busy_timeout=" + busy
                        + "); open it with Sqlite.url(path)");
            }
        }
    }

    private static String single(Statement st, String pragma) throws SQLException {
        try (ResultSet rs = st.executeQuery(pragma)) {
            return rs.next() ? rs.getString(1) : "";
        }
    }
}
