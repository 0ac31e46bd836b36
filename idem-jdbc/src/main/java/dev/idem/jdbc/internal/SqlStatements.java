package dev.idem.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Named statements: the shared {@code common/<file>} overlaid by a dialect's own {@code <file>},
 * for {@code statements.sql} and, when asked, one more file such as {@code inbox.sql}. Each statement
 * starts at a line {@code -- name: <name>} and runs to the next; other comment lines are dropped.
 * The placeholders {@code {now_ms}}, {@code {new_token}} and {@code {greatest}} are replaced by the
 * dialect's expressions of those names, and the default table names by the configured ones. Other
 * placeholders ({@code {rows}}, {@code {ids}}, {@code {track}}) are left for the caller to expand.
 */
public final class SqlStatements {
    private static final String NAME_MARK = "-- name:";
    private static final String COMMON = "dev/idem/jdbc/common/";
    private static final String BASE_FILE = "statements.sql";

    private final Map<String, String> statements;

    private SqlStatements(Map<String, String> statements) {
        this.statements = statements;
    }

    /** @param dialectFolder e.g. {@code dev/idem/jdbc/postgresql/} */
    public static SqlStatements load(String dialectFolder, String tableName) {
        return load(dialectFolder, null, Map.of(Tables.DEFAULT_RECORD_TABLE, tableName));
    }

    /**
     * @param dialectFolder e.g. {@code dev/idem/jdbc/postgresql/}
     * @param file          another statement file beside {@code statements.sql} ({@code inbox.sql}), or {@code null}
     * @param tableNames    default table name to configured name
     */
    public static SqlStatements load(String dialectFolder, String file, Map<String, String> tableNames) {
        String base = dialectFolder + BASE_FILE;
        Map<String, String> raw = parse(read(COMMON + BASE_FILE), COMMON + BASE_FILE);
        raw.putAll(parse(read(base), base));
        if (file != null) {
            String common = read(COMMON + file);
            String own = read(dialectFolder + file);
            if (common == null && own == null) {
                throw new IllegalStateException("statement file " + file + " not found on the class path");
            }
            raw.putAll(parse(common, file));
            raw.putAll(parse(own, file));
        }
        String nowMs = "(" + require(raw, "now_ms", base) + ")";
        String newToken = "(" + require(raw, "new_token", base) + ")";
        String greatest = require(raw, "greatest", base);
        // Shared fragments first: they contain the other placeholders.
        String takeover = raw.getOrDefault("claim_takeover", "");
        Map<String, String> resolved = new HashMap<>();
        raw.forEach((name, sql) -> resolved.put(name, Tables.rename(sql
                .replace("{claim_takeover}", takeover)
                .replace("{now_ms}", nowMs)
                .replace("{new_token}", newToken)
                .replace("{greatest}", greatest), tableNames)));
        return new SqlStatements(resolved);
    }

    /** A statement only some dialects have. */
    public Optional<String> find(String name) {
        return Optional.ofNullable(statements.get(name));
    }

    public String get(String name) {
        String sql = statements.get(name);
        if (sql == null) {
            throw new IllegalStateException("dialect has no statement named '" + name + "'");
        }
        return sql;
    }

    /**
     * Statement {@code name} with its {@code {placeholder}} replaced by {@code count} copies of
     * {@code fragment} joined by commas: {@code VALUES {rows}} with a row template, {@code IN ({ids})} with {@code ?}.
     */
    public String expand(String name, String placeholder, String fragment, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("cannot expand " + placeholder + " to " + count + " items");
        }
        StringBuilder list = new StringBuilder((fragment.length() + 2) * count);
        for (int i = 0; i < count; i++) {
            list.append(i == 0 ? "" : ", ").append(fragment);
        }
        String sql = get(name);
        if (!sql.contains(placeholder)) {
            throw new IllegalStateException("statement '" + name + "' has no " + placeholder);
        }
        return sql.replace(placeholder, list);
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

    private static Map<String, String> parse(String text, String resource) {
        if (text == null) {
            if (resource.endsWith(BASE_FILE)) {
                throw new IllegalStateException("dialect statements " + resource + " not found on the class path");
            }
            return Collections.emptyMap();
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
