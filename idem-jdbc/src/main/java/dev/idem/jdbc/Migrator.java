package dev.idem.jdbc;

import dev.idem.jdbc.internal.SqlStatements;
import dev.idem.jdbc.internal.Tables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies a dialect's numbered migrations {@code V1__…sql, V2__…sql, …} that the history table does
 * not list yet, each in its own transaction under a lock (PostgreSQL: an advisory lock taken before
 * anything else; SQLite: the database's write lock), so that instances starting together apply each
 * migration once.
 */
final class Migrator {
    private static final int MAX_VERSION = 1000;
    private static final String[] DESCRIPTIONS = {"create_idem_record"};

    private final Dialect dialect;
    private final SqlStatements sql;
    private final String tableName;

    Migrator(Dialect dialect, SqlStatements sql, String tableName) {
        this.dialect = dialect;
        this.sql = sql;
        this.tableName = tableName;
    }

    void migrate(Connection c) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        try {
            for (int version = 1; version <= MAX_VERSION; version++) {
                String script = script(version);
                if (script == null) {
                    break;
                }
                apply(c, version, script);
            }
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    private void apply(Connection c, int version, String script) throws SQLException {
        c.setAutoCommit(false);
        try {
            try (Statement st = c.createStatement()) {
                for (String step : lockSteps()) {
                    st.execute(historyTable(step));
                }
            }
            if (!applied(c, version)) {
                try (Statement st = c.createStatement()) {
                    for (String statement : statements(script)) {
                        st.execute(statement.replace(Tables.DEFAULT_RECORD_TABLE, tableName));
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(historyTable(
                        "INSERT INTO idem_schema_history (version, description, applied_at) VALUES (?, ?, ?)"))) {
                    ps.setInt(1, version);
                    ps.setString(2, description(version));
                    ps.setLong(3, System.currentTimeMillis());
                    ps.executeUpdate();
                }
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Lock first where the dialect can (PostgreSQL), then make sure the history table exists, then lock it where that is the lock (SQLite). */
    private List<String> lockSteps() {
        List<String> steps = new ArrayList<>();
        sql.find("lock_migrations").ifPresent(steps::add);
        steps.add(sql.get("create_history"));
        sql.find("lock_history").ifPresent(steps::add);
        return steps;
    }

    private boolean applied(Connection c, int version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(historyTable("SELECT 1 FROM idem_schema_history WHERE version = ?"))) {
            ps.setInt(1, version);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Each record table has its own history, so two stores with different tables migrate independently. */
    private String historyTable(String statement) {
        return statement.replace("idem_schema_history", tableName + "_schema_history");
    }

    private String script(int version) {
        if (version > DESCRIPTIONS.length) {
            return null;
        }
        String resource = dialect.resourceFolder() + "V" + version + "__" + description(version) + ".sql";
        String text = SqlStatements.read(resource);
        if (text == null) {
            throw new IllegalStateException("migration " + resource + " is missing from the class path");
        }
        return text;
    }

    private static String description(int version) {
        return DESCRIPTIONS[version - 1];
    }

    /** Splits a script at semicolons that end a line; drops comment-only lines. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String statement = current.toString().trim();
                out.add(statement.substring(0, statement.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().trim());
        }
        return out;
    }
}
