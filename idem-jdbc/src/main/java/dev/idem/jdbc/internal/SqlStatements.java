package dev.idem.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Named statements: the shared {@code common/statements.sql} overlaid by a dialect's own
 * {@code statements.sql}. Each statement starts at a line {@code -- name: <name>} and runs to the
 * next; other comment lines are dropped. The placeholders {@code {now_ms}}, {@code {new_token}} and
 * {@code {greatest}} are replaced by the dialect's expressions of those names, and the default table
 * name by the configured one.
 */
public final class SqlStatements {
    private static final String NAME_MARK = "-- name:";
    private static final String COMMON = "dev/idem/jdbc/common/statements.sql";

    private final Map<String, String> statements;

    private SqlStatements(Map<String, String> statements) {
        this.statements = statements;
    }

    /** @param dialectFolder e.g. {@code dev/idem/jdbc/postgresql/} */
    public static SqlStatements load(String dialectFolder, String tableName) {
        String resource = dialectFolder + "statements.sql";
        Map<String, String> raw = parse(read(COMMON));
        raw.putAll(parse(read(resource)));
        String nowMs = "(" + require(raw, "now_ms", resource) + ")";
        String newToken = "(" + require(raw, "new_token", resource) + ")";
        String greatest = require(raw, "greatest", resource);
        Map<String, String> resolved = new HashMap<>();
        raw.forEach((name, sql) -> resolved.put(name, sql
                .replace("{now_ms}", nowMs)
                .replace("{new_token}", newToken)
                .replace("{greatest}", greatest)
                .replace(Tables.DEFAULT_RECORD_TABLE, tableName)));
        return new SqlStatements(resolved);
    }

    /** A statement only some dialects have. */
    public java.util.Optional<String> find(String name) {
        return java.util.Optional.ofNullable(statements.get(name));
    }

    public String get(String name) {
        String sql = statements.get(name);
        if (sql == null) {
            throw new IllegalStateException("dialect has no statement named '" + name + "'");
        }
        return sql;
    }

    public static String read(String resource) {
        // Class.getResourceAsStream reads this module's own resources on the class path and the module path alike.
        try (InputStream in = SqlStatements.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                return null;
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    private static String require(Map<String, String> raw, String name, String resource) {
        String sql = raw.get(name);
        if (sql == null) {
            throw new IllegalStateException(resource + " has no statement named '" + name + "'");
        }
        return sql;
    }

    private static Map<String, String> parse(String text) {
        if (text == null) {
            throw new IllegalStateException("dialect statements not found on the class path");
        }
        Map<String, String> out = new HashMap<>();
        String name = null;
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String trimmed = line.trim();
            if (trimmed.startsWith(NAME_MARK)) {
                put(out, name, sql);
                name = trimmed.substring(NAME_MARK.length()).trim();
                sql.setLength(0);
            } else if (!trimmed.startsWith("--") && !trimmed.isEmpty()) {
                sql.append(sql.length() == 0 ? "" : "\n").append(line);
            }
        }
        put(out, name, sql);
        return out;
    }

    private static void put(Map<String, String> out, String name, StringBuilder sql) {
        if (name != null) {
            out.put(name, sql.toString().trim());
        }
    }
}
