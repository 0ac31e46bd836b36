package dev.idem.jdbc.support;

import dev.idem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Applies a dialect's numbered migrations {@code V1__…sql, V2__…sql, …} that the history table does
 * not list yet, each in its own transaction under a lock (PostgreSQL: an advisory lock taken before
 * anything else; SQLite: the database's write lock; MariaDB: a named {@code GET_LOCK} the session
 * holds across all of the track's migrations, since MariaDB commits DDL implicitly and a
 * transaction-scoped lock would end with the first {@code CREATE}), so that instances starting
 * together apply each migration once. On MariaDB a migration is therefore not atomic: its
 * statements are all {@code IF NOT EXISTS}, so a run that stopped half way is completed by the next.
 *
 * <p>The files form one sequence per dialect, in the order a DBA runs them by hand, under
 * {@link #IDEM_FOLDER} (an application's own {@link dev.idem.jdbc.SchemaMigrations} keep theirs beside their class). Each migration
 * belongs to a <em>track</em>, named by the default name of the table it serves: the store's
 * records, the inbox (with its quarantine), the outbox or the windowed totals. A component
 * migrates only its own track, with its configured table names, and keeps its history in
 * {@code <its table>_schema_history}; so components with any table names migrate independently.
 */
public final class Migrator {
    /**
     * One numbered file {@code V<version>__<description>.sql} and the track it belongs to.
     *
     * @param recordedAs the number written to (and looked up in) the track's history table: the file's version,
     *                   except where earlier builds wrote another one and databases they migrated must stay as they are
     */
    public record Migration(int version, String description, String track, int recordedAs) {
        public Migration(int version, String description, String track) {
            this(version, description, track, version);
        }
    }

    /**
     * Where idem's own numbered files live, one folder per dialect, whichever module ships them: one
     * Flyway location (and the folder of the Liquibase changelogs beside it). Not a Java package name
     * (the hyphen), so the folder is no split package when several modules on the module path have it.
     */
    public static final String IDEM_FOLDER = "db/idem-migrations/";

    /**
     * idem's one sequence of versions, in the order a DBA runs the files: each file lives in the module of
     * the component whose track it is (the records here; the inbox, outbox, windowed totals and Kafka
     * offsets in theirs), all under {@link #IDEM_FOLDER}. A version is never reused by another module, so
     * all of the files can sit in one Flyway location; a new file takes the next free number, whatever its module.
     */
    public static final List<Migration> MIGRATIONS = List.of(
            new Migration(1, "create_idem_record", Tables.DEFAULT_RECORD_TABLE),
            new Migration(2, "create_idem_inbox", Tables.DEFAULT_INBOX_TABLE),
            new Migration(3, "create_idem_outbox", Tables.DEFAULT_OUTBOX_TABLE),
            new Migration(4, "create_idem_window_total", Tables.DEFAULT_WINDOW_TOTAL_TABLE),
            // idem-kafka's offsets; its history table has recorded this file as 1 since before the numbers were shared.
            new Migration(5, "create_idem_kafka_offset", "idem_kafka_offset", 1),
            new Migration(6, "index_idem_record_in_progress", Tables.DEFAULT_RECORD_TABLE));

    private final Lock lock;
    private final SqlStatements sql;
    private final SqlStatements.Source files;
    private final String folder;
    private final List<Migration> migrations;
    private final String track;
    private final Map<String, String> tableNames;
    private final String tableName;

    /**
     * A track of {@link #MIGRATIONS}, its files in the track's component's module under {@link #IDEM_FOLDER}.
     *
     * @param track      the default name of the track's table, e.g. {@code idem_inbox}
     * @param tableNames default name to configured name, for at least the track's tables
     */
    public Migrator(Dialect dialect, SqlStatements sql, Class<?> component, String track, Map<String, String> tableNames) {
        this(dialect, sql, SqlStatements.Source.of(component), idemFolder(dialect), MIGRATIONS, track, tableNames);
    }

    /**
     * An application's own sequence ({@link dev.idem.jdbc.SchemaMigrations}).
     *
     * @param files      the component's SQL
     * @param folder     the resource folder of the numbered files, e.g. {@code com/example/postgresql/}
     * @param migrations the sequence, of which the entries of {@code track} are applied
     */
    public Migrator(Dialect dialect, SqlStatements sql, SqlStatements.Source files, String folder, List<Migration> migrations,
            String track, Map<String, String> tableNames) {
        this.lock = lockOf(dialect);
        this.sql = sql;
        this.files = files;
        this.folder = folder;
        this.migrations = migrations;
        this.track = track;
        this.tableNames = tableNames;
        this.tableName = tableNames.getOrDefault(track, track);
    }

    /** e.g. {@code db/idem-migrations/postgresql/}: the folder of idem's own numbered files on {@code dialect}. */
    public static String idemFolder(Dialect dialect) {
        return IDEM_FOLDER + dialect.name().toLowerCase(java.util.Locale.ROOT) + "/";
    }

    /** How instances starting together take turns applying migrations. */
    enum Lock {
        /** {@code lock_migrations}: a lock held to the end of the migration's transaction, taken before anything else (PostgreSQL). */
        TRANSACTION_ADVISORY,
        /** {@code lock_history}: a no-op write to the history table takes the database's write lock (SQLite). */
        HISTORY_WRITE,
        /**
         * {@code lock_migrations_session} / {@code unlock_migrations_session}: a named lock the session holds across all of
         * a track's migrations, since DDL commits implicitly (MariaDB).
         */
        SESSION_NAMED
    }

    /** The migrator's per-dialect fact; a new dialect does not compile until it is decided here. */
    static Lock lockOf(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> Lock.TRANSACTION_ADVISORY;
            case SQLITE -> Lock.HISTORY_WRITE;
            case MARIADB -> Lock.SESSION_NAMED;
        };
    }

    /** The statements a migrating component needs on {@code dialect}: the history table and the dialect's lock. */
    public static List<String> requiredStatements(Dialect dialect) {
        return switch (lockOf(dialect)) {
            case TRANSACTION_ADVISORY -> List.of("create_history", "lock_migrations");
            case HISTORY_WRITE -> List.of("create_history", "lock_history");
            case SESSION_NAMED -> List.of("create_history", "lock_migrations_session", "unlock_migrations_session");
        };
    }

    /**
     * Applies the track's migrations that its history table does not list yet, on {@code c}, each in a
     * transaction of its own under the dialect's lock; {@code c}'s auto-commit is as it was afterwards.
     *
     * @throws SQLException the database's failure; the migration that failed is rolled back where the
     *                      dialect can (not on MariaDB, whose statements are written to be run again)
     */
    public void migrate(Connection c) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        lockSession(c);
        try {
            for (Migration migration : migrations) {
                if (migration.track().equals(track)) {
                    apply(c, migration, script(migration));
                }
            }
        } catch (SQLException | RuntimeException e) {
            unlockSession(c, e);
            restoreQuietly(c, autoCommit, e);
            throw e;
        }
        unlockSession(c, null);
        c.setAutoCommit(autoCommit);
    }

    /** Takes the dialect's session-scoped migration lock, if it has one (MariaDB), or fails after its wait. */
    private void lockSession(Connection c) throws SQLException {
        if (lock != Lock.SESSION_NAMED) {
            return;
        }
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql.get("lock_migrations_session").replace("{track}", tableName))) {
            if (!rs.next() || rs.getInt(1) != 1) {
                throw new SQLException("could not take the migration lock of " + tableName + ": another instance held it too long");
            }
        }
    }

    /** Releases the session lock; a failure to do so is recorded on {@code failure}, or thrown if there is none. */
    private void unlockSession(Connection c, Throwable failure) throws SQLException {
        if (lock != Lock.SESSION_NAMED) {
            return;
        }
        try (Statement st = c.createStatement()) {
            st.execute(sql.get("unlock_migrations_session").replace("{track}", tableName));
        } catch (SQLException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }

    private void apply(Connection c, Migration migration, String script) throws SQLException {
        c.setAutoCommit(false);
        try {
            try (Statement st = c.createStatement()) {
                for (String step : lockSteps()) {
                    st.execute(historyTable(step));
                }
            }
            if (!applied(c, migration.recordedAs())) {
                try (Statement st = c.createStatement()) {
                    for (String statement : statements(script)) {
                        st.execute(Tables.rename(statement, tableNames));
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(historyTable(
                        "INSERT INTO idem_schema_history (version, description, applied_at) VALUES (?, ?, ?)"))) {
                    ps.setInt(1, migration.recordedAs());
                    ps.setString(2, migration.description());
                    ps.setLong(3, System.currentTimeMillis());
                    ps.executeUpdate();
                }
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            // The database's own error is the one to report: if the connection dropped, the rollback
            // and the restore fail too ("connection is closed"), and are only recorded beside it.
            Transactions.rollbackQuietly(c, e);
            restoreQuietly(c, true, e);
            throw e;
        }
        c.setAutoCommit(true);
    }

    private static void restoreQuietly(Connection c, boolean autoCommit, Throwable failure) {
        try {
            c.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /** Lock first where the dialect can (PostgreSQL), then make sure the history table exists, then lock it where that is the lock (SQLite). */
    private List<String> lockSteps() {
        List<String> steps = new ArrayList<>();
        if (lock == Lock.TRANSACTION_ADVISORY) {
            steps.add(sql.get("lock_migrations").replace("{track}", tableName));
        }
        steps.add(sql.get("create_history"));
        if (lock == Lock.HISTORY_WRITE) {
            steps.add(sql.get("lock_history"));
        }
        return steps;
    }

    private boolean applied(Connection c, int recordedAs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(historyTable("SELECT 1 FROM idem_schema_history WHERE version = ?"))) {
            ps.setInt(1, recordedAs);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Each track's table has its own history, so components with different tables migrate independently. */
    private String historyTable(String statement) {
        return statement.replace("idem_schema_history", tableName + "_schema_history");
    }

    private String script(Migration migration) {
        String resource = folder + "V" + migration.version() + "__" + migration.description() + ".sql";
        String text = files.read(resource);
        if (text == null) {
            throw new IllegalStateException("migration " + resource + " is missing from the class path");
        }
        return text;
    }

    /** Splits a script at semicolons that end a line; drops comment-only lines. */
    public static List<String> statements(String script) {
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
