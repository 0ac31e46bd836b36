package dev.idem.demo.lab;

import dev.idem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/** The few SQL chores the pattern rows share: their tables, and counting from them. */
final class Sql {
    private Sql() {
    }

    static Dialect dialect(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return Dialect.detect(c);
        }
    }

    /** A surrogate key column: a sink without a natural key appends whatever it is given. */
    static String identity(Dialect dialect) {
        return dialect == Dialect.POSTGRESQL ? "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT";
    }

    /** Runs each statement in auto-commit mode. */
    static void run(DataSource dataSource, String... statements) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        }
    }

    /** Drops the row's tables of an earlier run (on a shared PostgreSQL) and creates them empty. */
    static void recreate(DataSource dataSource, String table, String columns) throws SQLException {
        run(dataSource, "DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (" + columns + ")");
    }

    /** The first column of each row as a string, mapped to the second as a long, in row order. */
    static Map<String, Long> longsBy(DataSource dataSource, String query) throws SQLException {
        Map<String, Long> result = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            while (rs.next()) {
                result.put(rs.getString(1), rs.getLong(2));
            }
        }
        return result;
    }

    static long single(DataSource dataSource, String query) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Minor units as major, with a thousands separator: 1234567 is "12,345.67". */
    static String money(long cents) {
        return String.format(Locale.ROOT, "%,d.%02d", cents / 100, Math.abs(cents % 100));
    }
}
