package dev.idem.jdbc.support;

import dev.idem.jdbc.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The one loader of idem's named SQL statements. A component's statements are idem-jdbc's shared
 * {@code dev/idem/jdbc/common/statements.sql} overlaid by the dialect's own
 * {@code dev/idem/jdbc/<dialect>/statements.sql}, then, when the component has a file of its own,
 * its {@code <package>/common/<file>} overlaid by {@code <package>/<dialect>/<file>}, read through the
 * component's anchor class (so each named module reads its own resources). Each statement starts at a
 * line {@code -- name: <name>} and runs to the next; other comment lines are dropped.
 *
 * <p>A placeholder naming another statement ({@code {claim_takeover}}, {@code {outbox_heads}}) is
 * replaced by that statement's text, so a part dialects share is written once, in the common file.
 * The placeholders {@code {now_ms}}, {@code {new_token}} and {@code {greatest}} are replaced by the
 * dialect's expressions of those names, and the default table names by the configured ones. Other
 * placeholders ({@code {rows}}, {@code {ids}}, {@code {track}}) are left for the caller to expand.
 *
 * <p>A component names every statement it will run when it is built; a missing one fails the build
 * with the dialect, the file and the statement, instead of failing its first use in production.
 */
public final class SqlStatements {
    private static final String NAME_MARK = "-- name:";
    private static final String BASE_FILE = "statements.sql";
    /** The dialect's expressions, which statements use as placeholders rather than as fragments. */
    private static final Set<String> EXPRESSIONS = Set.of("now_ms", "new_token", "greatest");

    private final Map<String, String> statements;

    private SqlStatements(Map<String, String> statements) {
        this.statements = statements;
    }

    /**
     * Where a component's SQL is read from: its anchor class (whose package folder holds the files) and,
     * for tests only, statements to leave out as if the dialect's files lacked them.
     */
    public record Source(Class<?> anchor, Set<String> omitted) {
        public Source {
            omitted = Set.copyOf(omitted);
        }

        public static Source of(Class<?> anchor) {
            return new Source(anchor, Set.of());
        }

        /** The same files as if none of them had the statement {@code name}: the seam of the build-time checks' tests. */
        public Source without(String name) {
            List<String> more = new ArrayList<>(omitted);
            more.add(name);
            return new Source(anchor, Set.copyOf(more));
        }

        /** e.g. {@code dev/idem/inbox/mariadb/} for the inbox's anchor. */
        public String folder(Dialect dialect) {
            return folder(dialect.name().toLowerCase(Locale.ROOT));
        }

        String folder(String name) {
            return anchor.getPackageName().replace('.', '/') + "/" + name + "/";
        }

        /** The resource's text, or null if the anchor's module does not have it. */
        public String read(String resource) {
            // Class.getResourceAsStream reads the anchor's own module's resources, on the class path and the module path alike.
            try (InputStream in = anchor.getResourceAsStream("/" + resource)) {
                if (in == null) {
                    return null;
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + resource, e);
            }
        }
    }

    /** The key store's statements: {@code statements.sql} only, {@code idem_record} renamed to {@code tableName}. */
    public static SqlStatements load(Dialect dialect, String tableName, Collection<String> required) {
        return load(dialect, Source.of(Dialect.class), null, Map.of(Tables.DEFAULT_RECORD_TABLE, tableName), required);
    }

    /**
     * @param source     the component's anchor class (its package folder holds {@code common/<file>} and {@code <dialect>/<file>})
     * @param file       the component's statement file ({@code inbox.sql}), or {@code null} for {@code statements.sql} only
     * @param tableNames default table name to configured name
     * @param required   every statement the component runs on this dialect
     * @throws IllegalStateException naming the dialect, the file and the statement, if one of {@code required} is missing
     */
    public static SqlStatements load(Dialect dialect, Source source, String file, Map<String, String> tableNames,
            Collection<String> required) {
        return loadFiles(dialect, source, file == null ? List.of() : List.of(file), tableNames, required);
    }

    /**
     * {@link #load(Dialect, Source, String, Map, Collection)} with several statement files, each over
     * the ones before it by name: a component's statements and a layout's overlay of some of them
     * ({@code inbox.sql}, then {@code inbox-partitioned.sql}).
     */
    public static SqlStatements loadFiles(Dialect dialect, Source source, List<String> files, Map<String, String> tableNames,
            Collection<String> required) {
        Source base = new Source(Dialect.class, source.omitted());
        String baseFile = base.folder(dialect) + BASE_FILE;
        Map<String, String> raw = new HashMap<>();
        raw.putAll(parse(base.read(base.folder("common") + BASE_FILE), base.folder("common") + BASE_FILE, false));
        raw.putAll(parse(base.read(baseFile), baseFile, true));
        String where = baseFile;
        for (String file : files) {
            String common = source.folder("common") + file;
            String own = source.folder(dialect) + file;
            String commonText = source.read(common);
            String ownText = source.read(own);
            if (commonText == null && ownText == null) {
                throw new IllegalStateException(dialect.displayName() + " SQL: statement file " + own + " not found on the class path");
            }
            raw.putAll(parse(commonText, common, false));
            raw.putAll(parse(ownText, own, false));
            where = own + " (over " + (where.equals(baseFile) ? common + " and " : "") + where + ")";
        }
        raw.keySet().removeAll(source.omitted());
        for (String name : required) {
            if (!raw.containsKey(name)) {
                throw new IllegalStateException(dialect.displayName() + " SQL is incomplete: " + where
                        + " has no statement named '" + name + "'");
            }
        }
        return new SqlStatements(resolve(raw, tableNames, dialect, baseFile));
    }

    private static Map<String, String> resolve(Map<String, String> raw, Map<String, String> tableNames, Dialect dialect, String baseFile) {
        String nowMs = "(" + require(raw, "now_ms", dialect, baseFile) + ")";
        String newToken = "(" + require(raw, "new_token", dialect, baseFile) + ")";
        String greatest = require(raw, "greatest", dialect, baseFile);
        Map<String, String> resolved = new HashMap<>();
        // Fragments first: they contain the other placeholders.
        raw.forEach((name, sql) -> resolved.put(name, Tables.rename(includeFragments(sql, raw)
                .replace("{now_ms}", nowMs)
                .replace("{new_token}", newToken)
                .replace("{greatest}", greatest), tableNames)));
        return resolved;
    }

    /**
     * {@code sql} with each {@code {name}} of another statement replaced by that statement's text: a
     * part several statements (or dialects) share is written once, e.g. {@code claim_takeover}. One
     * level deep; the dialect's expressions are placeholders of their own, replaced after this.
     */
    private static String includeFragments(String sql, Map<String, String> raw) {
        String out = sql;
        for (Map.Entry<String, String> fragment : raw.entrySet()) {
            if (!EXPRESSIONS.contains(fragment.getKey())) {
                out = out.replace("{" + fragment.getKey() + "}", fragment.getValue());
            }
        }
        return out;
    }

    /** A statement the component declared when it was built; any other name is a programming error. */
    public String get(String name) {
        String sql = statements.get(name);
        if (sql == null) {
            throw new IllegalStateException("no statement named '" + name + "' was loaded");
        }
        return sql;
    }

    /**
     * Statement {@code name} with its {@code {placeholder}} replaced by {@code count} copies of
     * {@code fragment} joined by commas: {@code VALUES {rows}} with a row template, {@code IN ({ids})} with {@code ?}.
     */
    public String expand(String name, String placeholder, String fragment, int count) {
        return expand(name, placeholder, fragment, count, ", ");
    }

    /** {@link #expand(String, String, String, int)} with the copies joined by {@code separator}, e.g. {@code " UNION ALL "}. */
    public String expand(String name, String placeholder, String fragment, int count, String separator) {
        if (count < 1) {
            throw new IllegalArgumentException("cannot expand " + placeholder + " to " + count + " items");
        }
        StringBuilder list = new StringBuilder((fragment.length() + 2) * count);
        for (int i = 0; i < count; i++) {
            list.append(i == 0 ? "" : separator).append(fragment);
        }
        String sql = get(name);
        if (!sql.contains(placeholder)) {
            throw new IllegalStateException("statement '" + name + "' has no " + placeholder);
        }
        return sql.replace(placeholder, list);
    }

    private static String require(Map<String, String> raw, String name, Dialect dialect, String resource) {
        String sql = raw.get(name);
        if (sql == null) {
            throw new IllegalStateException(dialect.displayName() + " SQL is incomplete: " + resource + " has no statement named '" + name + "'");
        }
        return sql;
    }

    private static Map<String, String> parse(String text, String resource, boolean mandatory) {
        if (text == null) {
            if (mandatory) {
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
