package dev.idem.kafka.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * idem-kafka's SQL as data, in the style of idem-jdbc's dialects: per dialect a file of named
 * statements (each starts at a line {@code -- name: <name>}) and numbered migrations
 * {@code V<n>__<description>.sql} that a DBA can run by hand.
 */
public final class SqlFiles {
    private static final String NAME_MARK = "-- name:";
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

    private SqlFiles() {
    }

    /** Lower-case SQL identifiers only: they are spliced into SQL text. At most 48 characters. */
    public static String checkTableName(String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("table name must match [a-z_][a-z0-9_]{0,47}, was '" + name + "'");
        }
        return name;
    }

    /** The resource's text, or null if it is not on the class path. */
    public static String read(String resource) {
        try (InputStream in = SqlFiles.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                return null;
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /**
     * The named statements of {@code resource}, with {@code {now_ms}} replaced by the file's own
     * {@code now_ms} statement and the default table name (also as the prefix of derived names) by
     * {@code tableName}.
     */
    public static Map<String, String> statements(String resource, String defaultTable, String tableName) {
        String text = read(resource);
        if (text == null) {
            throw new IllegalStateException("statement file " + resource + " not found on the class path");
        }
        Map<String, String> raw = new HashMap<>();
        String name = null;
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String trimmed = line.trim();
            if (trimmed.startsWith(NAME_MARK)) {
                put(raw, name, sql);
                name = trimmed.substring(NAME_MARK.length()).trim();
                sql.setLength(0);
            } else if (!trimmed.startsWith("--") && !trimmed.isEmpty()) {
                sql.append(sql.length() == 0 ? "" : "\n").append(line);
            }
        }
        put(raw, name, sql);
        String nowMs = raw.get("now_ms");
        Map<String, String> out = new HashMap<>();
        raw.forEach((n, s) -> out.put(n, rename(nowMs == null ? s : s.replace("{now_ms}", "(" + nowMs + ")"), defaultTable, tableName)));
        return out;
    }

    /** Replaces the default table name, also where it prefixes a derived name, by the configured one. */
    public static String rename(String sql, String defaultTable, String tableName) {
        return sql.replace(defaultTable, tableName);
    }

    /** Splits a migration script at semicolons that end a line; drops comment-only lines. */
    public static List<String> scriptStatements(String script) {
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

    private static void put(Map<String, String> out, String name, StringBuilder sql) {
        if (name != null) {
            out.put(name, sql.toString().trim());
        }
    }
}
