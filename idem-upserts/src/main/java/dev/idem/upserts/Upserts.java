package dev.idem.upserts;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Natural-key upserts: idempotency by a unique constraint that captures an operation's identity (a
 * ledger entry per message id, a balance per account). Writing the same row again has no further
 * effect, and a conflict on the key never raises an error, so it never aborts the caller's
 * transaction. The SQL comes from the dialect's {@code upserts.sql} templates (PostgreSQL and
 * SQLite: {@code INSERT … ON CONFLICT … DO NOTHING / DO UPDATE … WHERE excluded.version > t.version};
 * MariaDB: a plain {@code INSERT} whose duplicate-key error, told by its vendor code, InnoDB rolls back
 * alone, then {@code UPDATE … WHERE version < ?}; see its {@code upserts.sql} for why not
 * {@code ON DUPLICATE KEY UPDATE}). On MariaDB a conflict on any unique key of the table counts as
 * "the key exists": give the table no other unique constraint the row could meet.
 *
 * <pre>{@code
 * Upserts upserts = Upserts.of(inbox.dialect());
 * boolean inserted = upserts.insertOrIgnore(connection, "ledger_entry", List.of("message_id"),
 *         Map.of("message_id", id, "account", account, "amount", amount));
 * UpsertOutcome o = upserts.insertOrUpdate(connection, "account_balance", List.of("account"),
 *         Map.of("account", account, "balance", balance, "version", version), "version");
 * }</pre>
 *
 * <p>The key columns must carry a primary key or unique constraint, exactly those columns.
 * Identifiers are lower-case SQL names ({@code [a-z_][a-z0-9_]*}, at most 63 characters; a table may
 * be {@code schema.table}); they are validated and quoted, never spliced unchecked. Values are bound
 * with {@link PreparedStatement#setObject}. Statements run on the caller's connection and
 * transaction; nothing here commits. Thread-safe and stateless apart from the templates.
 */
public final class Upserts {
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Map<Dialect, Upserts> CACHE = new EnumMap<>(Dialect.class);
    private static final int MAX_UPSERT_ROUNDS = 8;

    private final Dialect dialect;
    private final SqlStatements sql;
    /** The expression of whether the upsert inserted (PostgreSQL), else empty. */
    private final Optional<String> insertedFlag;
    /** Whether an insert that met the key is followed by the dialect's plain guarded UPDATE (MariaDB). */
    private final boolean separateUpdate;

    private Upserts(Dialect dialect, SqlStatements.Source source) {
        this.dialect = dialect;
        this.sql = SqlStatements.load(dialect, source, "upserts.sql", Map.of(), requiredStatements(dialect));
        this.insertedFlag = UpsertReport.of(dialect) == UpsertReport.RETURNED_FLAG
                ? Optional.of(sql.get("upsert_inserted_flag")) : Optional.empty();
        this.separateUpdate = UpsertReport.of(dialect) == UpsertReport.SEPARATE_UPDATE;
    }

    /** Every statement the upserts run on {@code dialect}; checked when they are loaded. */
    static List<String> requiredStatements(Dialect dialect) {
        List<String> names = new ArrayList<>(List.of("upsert_quote", "upsert_insert_or_ignore", "upsert_insert_or_update",
                "upsert_assignment", "upsert_version_guard"));
        switch (UpsertReport.of(dialect)) {
            case RETURNED_FLAG -> names.add("upsert_inserted_flag");
            case SEPARATE_UPDATE -> names.addAll(List.of("upsert_update", "upsert_set", "upsert_match", "upsert_update_guard", "upsert_exists"));
            case ROW_COUNT -> { }
        }
        return names;
    }

    /** Test seam: the upserts of {@code dialect} read from {@code source}, not cached. */
    static Upserts load(Dialect dialect, SqlStatements.Source source) {
        return new Upserts(dialect, source);
    }

    /** The upserts of {@code dialect}. */
    public static Upserts of(Dialect dialect) {
        Objects.requireNonNull(dialect, "dialect is null");
        synchronized (CACHE) {
            return CACHE.computeIfAbsent(dialect, d -> new Upserts(d, SqlStatements.Source.of(Upserts.class)));
        }
    }

    /** The upserts of the connection's database, detected from its product name. */
    public static Upserts of(Connection connection) throws SQLException {
        return of(Dialect.detect(Objects.requireNonNull(connection, "connection is null")));
    }

    public Dialect dialect() {
        return dialect;
    }

    /**
     * Inserts {@code row} unless a row with its key exists; an existing row is left as it is.
     *
     * @param keyColumns the columns of the unique constraint, all present in {@code row}
     * @param row        column to value, keys included, in the order to write them
     * @return true if inserted, false if the key existed
     */
    public boolean insertOrIgnore(Connection connection, String table, List<String> keyColumns, Map<String, ?> row) throws SQLException {
        Statement s = statement(table, keyColumns, row, null, false);
        try {
            return insert(connection, s.insertOrIgnore, row);
        } catch (SQLException e) {
            throw Transactions.inCallersTransaction(e, "the upsert");
        }
    }

    /** Inserts {@code row}, or overwrites the other columns of the row with its key. */
    public UpsertOutcome insertOrUpdate(Connection connection, String table, List<String> keyColumns, Map<String, ?> row) throws SQLException {
        return insertOrUpdate(connection, table, keyColumns, row, null);
    }

    /**
     * Inserts {@code row}, or overwrites the row with its key if {@code row}'s value in
     * {@code versionColumn} is greater than the stored one ("apply only if newer"): an event
     * redelivered late or out of order cannot roll the row back.
     *
     * @param versionColumn a non-key column of {@code row} with an orderable value, or {@code null} for no guard
     * @return {@code INSERTED}, {@code UPDATED}, or {@code STALE} if the stored version was equal or newer
     */
    public UpsertOutcome insertOrUpdate(Connection connection, String table, List<String> keyColumns, Map<String, ?> row,
            String versionColumn) throws SQLException {
        Statement s = statement(table, keyColumns, row, versionColumn, true);
        try {
            return upsert(connection, table, keyColumns, row, versionColumn, s);
        } catch (SQLException e) {
            throw Transactions.inCallersTransaction(e, "the upsert");
        }
    }

    private UpsertOutcome upsert(Connection connection, String table, List<String> keyColumns, Map<String, ?> row, String versionColumn,
            Statement s) throws SQLException {
        if (insertedFlag.isPresent()) {
            try (PreparedStatement ps = connection.prepareStatement(s.insertOrUpdate)) {
                bind(ps, row);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return UpsertOutcome.STALE;
                    }
                    return rs.getBoolean(1) ? UpsertOutcome.INSERTED : UpsertOutcome.UPDATED;
                }
            }
        }
        if (separateUpdate) {
            return insertThenUpdate(connection, table, keyColumns, row, versionColumn, s.insertOrIgnore);
        }
        if (execute(connection, s.insertOrIgnore, row) == 1) {
            return UpsertOutcome.INSERTED;
        }
        return execute(connection, s.insertOrUpdate, row) == 1 ? UpsertOutcome.UPDATED : UpsertOutcome.STALE;
    }

    /**
     * MariaDB: insert; if the key exists, a plain UPDATE guarded in its WHERE. Rows matched tell
     * updated (1) from stale (0); a row deleted between the two statements sends the insert round again.
     */
    private UpsertOutcome insertThenUpdate(Connection connection, String table, List<String> keyColumns, Map<String, ?> row,
            String versionColumn, String insert) throws SQLException {
        List<String> others = new ArrayList<>();
        for (String column : row.keySet()) {
            if (!keyColumns.contains(column)) {
                others.add(column);
            }
        }
        String quotedTable = table(table);
        String set = String.join(", ", others.stream().map(c -> sql.get("upsert_set").replace("{column}", quote(c))).toList());
        String match = String.join(" AND ", keyColumns.stream().map(c -> sql.get("upsert_match").replace("{column}", quote(c))).toList());
        String guard = versionColumn == null ? "" : sql.get("upsert_update_guard").replace("{version}", quote(versionColumn));
        String updateSql = sql.get("upsert_update").replace("{table}", quotedTable).replace("{set}", set).replace("{match}", match)
                .replace("{guard}", guard);
        String existsSql = sql.get("upsert_exists").replace("{table}", quotedTable).replace("{match}", match);
        for (int round = 0; round < MAX_UPSERT_ROUNDS; round++) {
            if (insert(connection, insert, row)) {
                return UpsertOutcome.INSERTED;
            }
            int matched;
            try (PreparedStatement ps = connection.prepareStatement(updateSql)) {
                int i = 1;
                for (String column : others) {
                    ps.setObject(i++, row.get(column));
                }
                for (String key : keyColumns) {
                    ps.setObject(i++, row.get(key));
                }
                if (versionColumn != null) {
                    ps.setObject(i, row.get(versionColumn));
                }
                matched = ps.executeUpdate();
            }
            if (matched > 0) {
                return UpsertOutcome.UPDATED;
            }
            try (PreparedStatement ps = connection.prepareStatement(existsSql)) {
                int i = 1;
                for (String key : keyColumns) {
                    ps.setObject(i++, row.get(key));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        // The row is there: the guard refused the write; without a guard it already held these
                        // values (a connection with useAffectedRows=true counts such a row as 0).
                        return versionColumn != null ? UpsertOutcome.STALE : UpsertOutcome.UPDATED;
                    }
                }
            }
        }
        throw new SQLException("upsert into " + table + " did not settle: its row was deleted and re-created " + MAX_UPSERT_ROUNDS + " times meanwhile");
    }

    /** Runs an insert-or-ignore: true if it inserted; false if the key existed (by rows, or on MariaDB by the duplicate-key code). */
    private boolean insert(Connection connection, String insert, Map<String, ?> row) throws SQLException {
        try {
            return execute(connection, insert, row) == 1;
        } catch (SQLException e) {
            if (separateUpdate && isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Whether MariaDB refused a row for a duplicate key: vendor codes 1062 (ER_DUP_ENTRY) and 1586
     * (ER_DUP_ENTRY_WITH_KEY_NAME). Not the SQLState alone: 23000 also covers NOT NULL and foreign keys.
     */
    private static boolean isDuplicateKey(SQLException e) {
        return "23000".equals(e.getSQLState()) && (e.getErrorCode() == 1062 || e.getErrorCode() == 1586);
    }

    // ---- statements ---------------------------------------------------------------------------------

    private record Statement(String insertOrIgnore, String insertOrUpdate) {
    }

    private Statement statement(String table, List<String> keyColumns, Map<String, ?> row, String versionColumn, boolean update) {
        String quotedTable = table(table);
        Objects.requireNonNull(keyColumns, "keyColumns is null");
        Objects.requireNonNull(row, "row is null");
        if (keyColumns.isEmpty()) {
            throw new IllegalArgumentException("keyColumns is empty; name the columns of the unique constraint");
        }
        List<String> columns = new ArrayList<>(row.size());
        for (String column : row.keySet()) {
            columns.add(identifier("column", column));
        }
        for (String key : keyColumns) {
            identifier("key column", key);
            if (!row.containsKey(key)) {
                throw new IllegalArgumentException("key column '" + key + "' has no value in the row");
            }
        }
        if (keyColumns.stream().distinct().count() != keyColumns.size()) {
            throw new IllegalArgumentException("keyColumns repeats a column: " + keyColumns);
        }
        List<String> assignments = new ArrayList<>();
        for (String column : row.keySet()) {
            if (!keyColumns.contains(column)) {
                assignments.add(sql.get("upsert_assignment").replace("{column}", quote(column)));
            }
        }
        String guard = "";
        if (versionColumn != null) {
            identifier("version column", versionColumn);
            if (!row.containsKey(versionColumn)) {
                throw new IllegalArgumentException("version column '" + versionColumn + "' has no value in the row");
            }
            if (keyColumns.contains(versionColumn)) {
                throw new IllegalArgumentException("version column '" + versionColumn + "' is a key column; it must be one of the others");
            }
            guard = sql.get("upsert_version_guard").replace("{version}", quote(versionColumn));
        }
        if (update && assignments.isEmpty()) {
            throw new IllegalArgumentException("the row has only key columns: nothing to update; use insertOrIgnore");
        }
        String columnList = String.join(", ", columns.stream().map(this::quote).toList());
        String keyList = String.join(", ", keyColumns.stream().map(this::quote).toList());
        String values = String.join(", ", Collections.nCopies(columns.size(), "?"));
        String ignore = sql.get("upsert_insert_or_ignore")
                .replace("{table}", quotedTable).replace("{columns}", columnList)
                .replace("{values}", values).replace("{keys}", keyList);
        String upsert = !update ? null : sql.get("upsert_insert_or_update")
                .replace("{table}", quotedTable).replace("{columns}", columnList)
                .replace("{values}", values).replace("{keys}", keyList)
                .replace("{assignments}", String.join(", ", assignments))
                .replace("{guard}", guard)
                .replace("{returning}", insertedFlag.map(flag -> "RETURNING " + flag + " AS inserted").orElse(""));
        return new Statement(ignore, upsert);
    }

    private String table(String table) {
        if (table == null) {
            throw new IllegalArgumentException("table name is null");
        }
        int dot = table.indexOf('.');
        if (dot < 0) {
            return quote(identifier("table", table));
        }
        return quote(identifier("schema", table.substring(0, dot))) + "." + quote(identifier("table", table.substring(dot + 1)));
    }

    private static String identifier(String what, String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name must match [a-z_][a-z0-9_]{0,62}, was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        return name;
    }

    private String quote(String identifier) {
        return sql.get("upsert_quote").replace("{identifier}", identifier);
    }

    private static int execute(Connection connection, String statement, Map<String, ?> row) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(statement)) {
            bind(ps, row);
            return ps.executeUpdate();
        }
    }

    private static void bind(PreparedStatement ps, Map<String, ?> row) throws SQLException {
        int i = 1;
        for (Object value : row.values()) {
            ps.setObject(i++, value);
        }
    }

    @Override
    public String toString() {
        return "Upserts[" + dialect.displayName() + "]";
    }
}
