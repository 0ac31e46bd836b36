package dev.idem.jdbc.internal;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.Sqlite;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The one place every JDBC component's builder settles its dialect. */
public final class Dialects {
    private Dialects() {
    }

    /**
     * The configured dialect, or the one detected on {@code c}; on SQLite, after checking the settings idem relies on.
     *
     * @param configured the builder's dialect, or null to detect it
     * @throws IllegalStateException if SQLite is not in WAL mode with synchronous=FULL and a busy timeout
     */
    public static Dialect resolve(Connection c, Dialect configured) throws SQLException {
        Dialect chosen = configured != null ? configured : Dialect.detect(c);
        if (checksConnectionSettings(chosen)) {
            checkSqliteSettings(c);
        }
        return chosen;
    }

    /**
     * Whether the connection's own settings decide durability and concurrency (SQLite's pragmas, set
     * per connection); a server's settings are read by the durability check instead, by product name.
     */
    private static boolean checksConnectionSettings(Dialect dialect) {
        return switch (dialect) {
            case SQLITE -> true;
            case POSTGRESQL, MARIADB -> false;
        };
    }

    private static void checkSqliteSettings(Connection c) throws SQLException {
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
