package dev.idem.jdbc;

import dev.idem.jdbc.support.ExpiryPurge;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Tables;
import dev.idem.jdbc.support.Transactions;
import dev.idem.spi.Arguments;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The partitions (PostgreSQL, MariaDB) of a {@link JdbcIdempotencyStore} built with
 * {@link JdbcIdempotencyStore.Builder#retentionByPartition retention by partition}: its table is
 * range-partitioned by {@code expires_at}, partitions are created ahead of need and a partition is
 * dropped whole once its upper bound has passed (every record in it is past retention). The store's
 * {@code purge} runs {@link #maintain()}; {@link #convert()} turns today's unpartitioned table into the
 * partitioned layout on a live database. Other idem tables use the
 * same maintenance through {@link #forTable} (the inbox's: {@code Inbox.Builder.retentionByPartition}; the
 * outbox's, partitioned by each event's time and dropped a retention after a partition's bound, only
 * once every event in it is sent and past retention: {@code Outbox.Builder.retentionByPartition}).
 * See docs/stores.md, "Retention by partition".
 */
public final class RetentionPartitions {
    /** The key store's statements with retention by partition, over the dialect's own, in the dialect's folder. */
    static final String PARTITIONED_SQL = "partitioned.sql";
    /** The maintenance's own statements, the same for every table in this layout (idem_record there stands for the table). */
    static final String PARTITIONS_SQL = "partitions.sql";
    private static final Pattern BOUND = Pattern.compile(
            "FROM \\((MINVALUE|'?(-?\\d+)'?)\\) TO \\((MAXVALUE|'?(-?\\d+)'?)\\)");
    /**
     * The owner's statements for its table: its CREATE (the parent; on MariaDB with its first
     * partitions), its per-key lock table (MariaDB), what makes a past partition wait (blank: nothing
     * does), and its row-by-row purge before the table is partitioned. {@code {partition}} and {@code {to}}
     * in the CREATE are replaced, as in ../postgresql/partitioned.sql.
     */
    public static final List<String> TABLE_STATEMENTS = List.of("partition_create_table", "partition_create_lock", "partition_live_rows");

    /**
     * The owner's statements for {@link #convert()}, a blank one a step its table does not have: the
     * new parent's indexes besides its key, the key the old table needs for it (PostgreSQL: a unique
     * index built concurrently; MariaDB: the primary key, rebuilt online), the rows kept below every
     * expiry given the expiry the layout keeps them at (before the cut-over is chosen), and those rows
     * copied into the kept partition that takes the place of the converted table's first partition
     * (PostgreSQL, {@code {partition}} that partition). MariaDB moves them before the swap instead:
     * copied into the new parent's kept partition and deleted from the old table under the swap's lock,
     * copied back from the parent should the swap fail there, or (those whose id the table has not
     * taken since) at the next attempt should it stop.
     */
    public static final List<String> CONVERSION_STATEMENTS = List.of("partition_create_index", "convert_index", "convert_kept", "convert_keep_rows",
            "convert_copy_kept", "convert_delete_kept", "convert_restore_kept", "convert_recover_kept");

    /** The key store's statements of this layout, each checked when the store is built. */
    static List<String> statements(Dialect dialect) {
        List<String> names = new ArrayList<>(TABLE_STATEMENTS);
        names.add("purge_unpartitioned");
        names.addAll(CONVERSION_STATEMENTS);
        return names;
    }

    private static final List<String> MAINTENANCE = List.of("partition_now", "partition_maintenance_lock", "partition_maintenance_wait",
            "partition_maintenance_unlock", "partition_kind", "partition_list", "partition_new", "partition_attach", "partition_estimated_rows",
            "partition_detach_concurrently", "partition_detach", "partition_detach_finalize", "partition_drop",
            // The conversion's steps every table shares.
            "convert_max_expiry", "convert_parent_exists", "convert_leftovers", "convert_index_done", "convert_key", "convert_unbound", "convert_bound",
            "convert_validate", "convert_lock", "convert_rename_old", "convert_rename_new", "convert_attach_old", "convert_unlock");
    /** Upper bound of the kept partition: rows with an expiry of 0 or less stay there until a write moves them. */
    private static final long KEPT_BELOW = 1;

    /** One partition: the records whose {@code expires_at} is in [{@code from}, {@code to}); {@code from} null is MINVALUE. */
    public record Partition(String name, Long from, long to) {
    }

    /** What one {@link #maintain()} did: partitions created ahead, partitions dropped, and the rows these held (the planner's estimate). */
    public record Maintenance(int created, int dropped, long rowsDropped) {
        static final Maintenance SKIPPED = new Maintenance(0, 0, 0);
    }

    private final StoreCalls calls;
    private final Dialect dialect;
    /** The owner's statements ({@link #TABLE_STATEMENTS}, the key store's conversion). */
    private final SqlStatements sql;
    /** The maintenance's statements, renamed to this table. */
    private final SqlStatements maintenance;
    private final String table;
    private final long widthMs;
    private final long horizonMs;
    private final boolean deleteRows;
    /** The partition below every expiry that is never dropped, or null when the table has none. */
    private final String kept;
    /** How long past its upper bound a partition waits before it may go: 0 for tables partitioned by expiry. */
    private final long dropDelayMs;

    RetentionPartitions(StoreCalls calls, Dialect dialect, SqlStatements sql, String table, Duration width, Duration horizon,
            boolean deleteRows) {
        this(calls, dialect, sql, table, width, horizon, deleteRows, false, Duration.ZERO);
    }

    private RetentionPartitions(StoreCalls calls, Dialect dialect, SqlStatements sql, String table, Duration width, Duration horizon,
            boolean deleteRows, boolean keep, Duration dropDelay) {
        checkLayout(width, horizon);
        if (dropDelay.isNegative()) {
            throw new IllegalArgumentException("partition drop delay must not be negative, was " + dropDelay);
        }
        if (dialect != Dialect.POSTGRESQL && dialect != Dialect.MARIADB) {
            throw new IllegalStateException("retentionByPartition is supported on PostgreSQL and MariaDB, not on " + dialect.displayName());
        }
        this.calls = calls;
        this.dialect = dialect;
        this.sql = sql;
        this.maintenance = SqlStatements.load(dialect, SqlStatements.Source.of(Dialect.class), PARTITIONS_SQL,
                Map.of(Tables.DEFAULT_RECORD_TABLE, table), MAINTENANCE);
        this.table = table;
        this.widthMs = width.toMillis();
        this.horizonMs = horizon.toMillis();
        this.deleteRows = deleteRows;
        this.kept = keep ? table + "_pkeep" : null;
        this.dropDelayMs = dropDelay.toMillis();
    }

    /**
     * Retention by partition for a table of another idem component (the inbox's), with the same
     * maintenance as the key store's: range partitions by {@code expires_at}, made ahead to now plus
     * {@code horizon}, a partition dropped once its bound has passed. The component writes its rows so
     * that no row in a past partition is live, and serialises its per-key writes itself (no unique
     * index holds its key alone here).
     *
     * @param tableSql    the component's statements, among them {@link #TABLE_STATEMENTS}
     * @param keepBelowOne whether the table has a partition for expiries of 0 or less that is never
     *                    dropped: rows kept until a write gives them an expiry (the inbox's quarantined
     *                    messages); on MariaDB the component's CREATE makes it, named {@code <table>_pkeep}
     * @throws IllegalArgumentException if the width or horizon is out of range ({@link #checkLayout})
     */
    public static RetentionPartitions forTable(StoreCalls calls, Dialect dialect, SqlStatements tableSql, String table, Duration width,
            Duration horizon, boolean deleteRows, boolean keepBelowOne) {
        return new RetentionPartitions(calls, dialect, tableSql, table, width, horizon, deleteRows, keepBelowOne, Duration.ZERO);
    }

    /**
     * {@link #forTable(StoreCalls, Dialect, SqlStatements, String, Duration, Duration, boolean, boolean)}
     * for a table partitioned by another time than an expiry (the outbox's: each event's time): a
     * partition may go only once its upper bound is {@code dropDelay} in the past (the outbox's retention),
     * and, as always, only if the owner's {@code partition_live_rows} finds nothing in it. On PostgreSQL
     * that check runs again once the partition is detached, when no transaction can still write to it,
     * and a partition that holds a row after all is attached again instead of dropped.
     *
     * @param dropDelay 0 or more
     */
    public static RetentionPartitions forTable(StoreCalls calls, Dialect dialect, SqlStatements tableSql, String table, Duration width,
            Duration horizon, boolean deleteRows, boolean keepBelowOne, Duration dropDelay) {
        return new RetentionPartitions(calls, dialect, tableSql, table, width, horizon, deleteRows, keepBelowOne,
                Objects.requireNonNull(dropDelay, "dropDelay is null"));
    }

    /** How long past its upper bound a partition waits before it may be dropped: zero for tables partitioned by expiry. */
    public Duration dropDelay() {
        return Duration.ofMillis(dropDelayMs);
    }

    /**
     * The rule for a layout's width and horizon: width 1 ms to 31 days, horizon at least the width and
     * at most 10,000 widths.
     *
     * @throws IllegalArgumentException naming the setting that breaks it
     */
    public static void checkLayout(Duration width, Duration horizon) {
        Arguments.positive("partition width", width);
        Arguments.positive("partition horizon", horizon);
        if (width.compareTo(Duration.ofDays(31)) > 0) {
            throw new IllegalArgumentException("partition width must be at most 31 days, was " + width);
        }
        if (horizon.compareTo(width) < 0) {
            throw new IllegalArgumentException("partition horizon must be at least the width (" + width + "), was " + horizon);
        }
        if (horizon.dividedBy(width) > 10_000) {
            throw new IllegalArgumentException("partition horizon " + horizon + " over width " + width + " would make more than 10000 partitions");
        }
    }

    public Duration width() {
        return Duration.ofMillis(widthMs);
    }

    /** How far past now partitions exist after each {@link #maintain()}: a claim's retention must end within it. */
    public Duration horizon() {
        return Duration.ofMillis(horizonMs);
    }

    /** Whether {@code purge} also deletes expired rows one by one between drops (off: they go with their partition). */
    public boolean deletesExpiredRows() {
        return deleteRows;
    }

    /** Whether the table is partitioned now (false before {@link #convert()}, when the store purges row by row). */
    public boolean partitioned() {
        return calls.onConnection("read partitions", c -> "p".equals(kind(c)));
    }

    /** The table's partitions in bound order; empty while it is not partitioned. */
    public List<Partition> partitions() {
        return calls.onConnection("read partitions", c -> list(c, false));
    }

    /**
     * Creates the partitions up to now plus the {@linkplain #horizon() horizon} that do not exist yet,
     * then drops every partition whose upper bound has passed (detached concurrently first): by then every
     * record in it is past its retention, since every write keeps a live lease within the record's
     * expiry and a write that extends a record's life moves it to a later partition. A partition that
     * still holds a live lease (written by a store without this layout) is kept for a later run. Another
     * instance maintaining the same table at the moment makes this call a no-op.
     */
    public Maintenance maintain() {
        return calls.onConnection("maintain partitions", c -> autoCommitted(c, () -> {
            if (!"p".equals(kind(c)) || !tryLock(c)) {
                return Maintenance.SKIPPED;
            }
            try {
                return maintainLocked(c);
            } finally {
                unlock(c);
            }
        }));
    }

    /**
     * Turns the unpartitioned table into the partitioned layout while the service runs: the
     * old table becomes the first partition, covering every expiry before a cut-over at now plus the
     * horizon (or past the latest expiry it holds), and is dropped whole once that has passed; records expiring later go into new partitions.
     * No row is copied into a new table; writers wait only for one short swap. PostgreSQL: a unique index built
     * concurrently, a validated check, then one transaction that renames and attaches. MariaDB: the
     * primary key rebuilt online to hold {@code expires_at} (InnoDB copies the rows, writes go on), then
     * under {@code LOCK TABLES} the old table converted to the parent's partition (each row read once to
     * check its bound) and the parent renamed. Run it once every instance of the service runs with
     * retention by partition (a store without it cannot keep one row per key on the new layout). A
     * no-op if the table is partitioned already. See docs/stores-appendix.md, "Converting a live table".
     *
     * @throws IllegalStateException if the table does not exist or another instance is maintaining it
     */
    public void convert() {
        calls.onConnection("convert to partitions", c -> autoCommitted(c, () -> {
            String kind = kind(c);
            if ("p".equals(kind)) {
                return null;
            }
            if (kind == null && parentExists(c)) {
                // MariaDB: a conversion that stopped between CONVERT TABLE and the rename; the parent holds the table.
                renameConverted(c, table + "_parted");
                return null;
            }
            if (kind == null) {
                throw new IllegalStateException("table " + table + " does not exist; migrate() creates it partitioned");
            }
            if (!tryLock(c)) {
                throw new IllegalStateException("another instance is maintaining the partitions of " + table + "; try again");
            }
            try {
                convertLocked(c);
            } finally {
                unlock(c);
            }
            return null;
        }));
    }

    // ---- on the store's behalf ----------------------------------------------------------------

    /**
     * Refuses a store without retention by partition on a table that is partitioned: no unique index
     * holds (scope, idem_key) there, and its claim relies on one (on MariaDB it would insert a second
     * record for a key without a word).
     */
    static void refuseUnpartitionedStore(Connection c, Dialect dialect, String table) throws SQLException {
        refuseUnpartitioned(c, dialect, table, "store");
    }

    /**
     * Refuses a component built without retention by partition on a table that is partitioned: its
     * writes rely on a unique index on its key, which a partitioned table cannot have.
     *
     * @param component what is being built, named in the error ("store", "inbox")
     * @throws IllegalStateException if {@code table} is partitioned
     */
    public static void refuseUnpartitioned(Connection c, Dialect dialect, String table, String component) throws SQLException {
        if (dialect == Dialect.SQLITE) {
            return;
        }
        SqlStatements kind = SqlStatements.load(dialect, SqlStatements.Source.of(Dialect.class), PARTITIONS_SQL,
                Map.of(Tables.DEFAULT_RECORD_TABLE, table), List.of("partition_kind"));
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(kind.get("partition_kind"))) {
            if (rs.next() && "p".equals(rs.getString(1))) {
                throw new IllegalStateException("table " + table + " is partitioned (retention by partition): build the " + component
                        + " with retentionByPartition(width) too; without it a write cannot keep one row per key there");
            }
        }
    }

    /**
     * A component's migrations with this layout, on one connection: a table that does not exist yet
     * is created partitioned first (the migration's CREATE TABLE IF NOT EXISTS then skips it and adds
     * its indexes), and the partitions up to the horizon are made after, so that the first write has one.
     */
    public void migrate(Migrator migrator) {
        calls.onConnection("migrate", c -> {
            createIfAbsent(c);
            migrator.migrate(c);
            afterMigrate(c);
            return null;
        });
    }

    /** Creates the partitioned parent if the table does not exist yet (before the migrations, whose V1 then only adds its index). */
    void createIfAbsent(Connection c) throws SQLException {
        autoCommitted(c, () -> {
            execute(c, maintenance.get("partition_maintenance_wait"));
            try {
                if (kind(c) == null) {
                    // MariaDB creates a partitioned table with its first partition; PostgreSQL's come after, attached.
                    long first = Math.floorDiv(now(c), widthMs) * widthMs;
                    execute(c, sql.get("partition_create_table").replace("{parent}", table).replace("{unique}", "PRIMARY KEY")
                            .replace("{partition}", table + "_p" + first).replace("{to}", Long.toString(first + widthMs)));
                }
                execute(c, sql.get("partition_create_lock"));
            } finally {
                unlock(c);
            }
            return null;
        });
    }

    /** After the migrations: the partitions up to the horizon, so that the first claim has one. */
    void afterMigrate(Connection c) throws SQLException {
        autoCommitted(c, () -> {
            if (!"p".equals(kind(c))) {
                return null;
            }
            execute(c, maintenance.get("partition_maintenance_wait"));
            try {
                maintainLocked(c);
            } finally {
                unlock(c);
            }
            return null;
        });
    }

    /**
     * The store's purge: partition maintenance, then rows if configured or while the table is not
     * partitioned yet, in batches along the expiry index ({@code rows}).
     */
    int purge(Connection c, int limit, ExpiryPurge rows) throws SQLException {
        String kind = kind(c);
        if (kind == null) {
            return 0;
        }
        if (!"p".equals(kind)) {
            return rows.deleteBatch(c, sql.get("purge_unpartitioned"), limit);
        }
        long dropped = autoCommitted(c, () -> {
            if (!tryLock(c)) {
                return 0L;
            }
            try {
                return maintainLocked(c).rowsDropped();
            } finally {
                unlock(c);
            }
        });
        long deleted = deleteRows ? rows.deleteBatch(c, sql.get("purge"), limit) : 0;
        return (int) Math.min(Integer.MAX_VALUE, dropped + deleted);
    }

    // ---- the work -----------------------------------------------------------------------------

    private Maintenance maintainLocked(Connection c) throws SQLException {
        long now = now(c);
        List<Partition> existing = list(c, true);
        int created = createKept(c, existing) + createAhead(c, table, existing, now);
        int dropped = 0;
        long rows = 0;
        boolean concurrently = dialect == Dialect.POSTGRESQL && c.getMetaData().getDatabaseMajorVersion() >= 14;
        for (Partition p : existing) {
            if (p.to() > now - dropDelayMs || p.name().equals(kept) || holdsLiveLease(c, p.name())) {
                continue;
            }
            long estimate = estimatedRows(c, p.name());
            if (kept != null && p.from() == null) {
                replaceByKept(c, p.name());
            } else if (concurrently) {
                // SHARE UPDATE EXCLUSIVE on the parent: claims go on while it waits for the transactions that see the partition.
                execute(c, partitionSql("partition_detach_concurrently", table, p.name()));
                if (!dropDetached(c, p)) {
                    continue;
                }
            } else {
                execute(c, partitionSql("partition_drop", table, p.name()));
            }
            rows += estimate;
            dropped++;
        }
        return new Maintenance(created, dropped, rows);
    }

    /**
     * Drops a detached partition, unless the owner's check finds a live row in it now that every
     * transaction that could write to it has ended (one that wrote before the first check and committed
     * while the detach waited for it): then it is attached again, with its bounds, and kept.
     */
    private boolean dropDetached(Connection c, Partition p) throws SQLException {
        if (holdsLiveLease(c, p.name())) {
            execute(c, partitionSql("partition_attach", table, p.name())
                    .replace("{from}", p.from() == null ? "MINVALUE" : Long.toString(p.from())).replace("{to}", Long.toString(p.to())));
            return false;
        }
        execute(c, partitionSql("partition_drop", table, p.name()));
        return true;
    }

    /**
     * The kept partition, below every expiry idem writes, if the table has one and it is missing (PostgreSQL; MariaDB's CREATE makes it).
     * Not while a converted table's first partition covers its range: {@link #replaceByKept} makes it when that one goes.
     */
    private int createKept(Connection c, List<Partition> existing) throws SQLException {
        if (kept == null || existing.stream().anyMatch(p -> p.from() == null)) {
            return 0;
        }
        if (dialect != Dialect.POSTGRESQL) {
            throw new IllegalStateException("table " + table + " has no partition " + kept + " for its kept rows; it was not created by idem");
        }
        execute(c, partitionSql("partition_new", table, kept));
        execute(c, partitionSql("partition_attach", table, kept).replace("{from}", "MINVALUE").replace("{to}", Long.toString(KEPT_BELOW)));
        return 1;
    }

    /**
     * A converted table's first partition, past its bound (PostgreSQL): it covers every expiry from
     * MINVALUE, so the rows kept below every expiry (quarantined messages) live there until it goes. In
     * one transaction it is detached, the kept partition attached in its place and its kept rows copied
     * there (read along the expiry index): an ACCESS EXCLUSIVE lock on the parent for that time, once.
     * The caller drops it after.
     */
    private void replaceByKept(Connection c, String first) throws SQLException {
        c.setAutoCommit(false);
        try {
            execute(c, partitionSql("partition_detach", table, first));
            execute(c, partitionSql("partition_new", table, kept));
            execute(c, partitionSql("partition_attach", table, kept).replace("{from}", "MINVALUE").replace("{to}", Long.toString(KEPT_BELOW)));
            execute(c, sql.get("convert_keep_rows").replace("{partition}", first));
            c.commit();
        } catch (SQLException | RuntimeException e) {
            Transactions.rollbackQuietly(c, e);
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Partitions from the highest existing bound (or the current slot) on, until one reaches past now + horizon. */
    private int createAhead(Connection c, String parent, List<Partition> existing, long now) throws SQLException {
        long start = Math.floorDiv(now, widthMs) * widthMs;
        for (Partition p : existing) {
            start = Math.max(start, p.to());
        }
        int created = 0;
        while (start < now + horizonMs + widthMs) {
            String name = table + "_p" + start;
            execute(c, partitionSql("partition_new", parent, name));
            execute(c, partitionSql("partition_attach", parent, name)
                    .replace("{from}", Long.toString(start)).replace("{to}", Long.toString(start + widthMs)));
            start += widthMs;
            created++;
        }
        return created;
    }

    private void convertLocked(Connection c) throws SQLException {
        String parent = table + "_parted";
        String legacy = table + "_legacy";
        if (parentExists(c)) {
            // Kept rows a MariaDB attempt moved into the parent before it stopped go back first.
            execute(c, sql.get("convert_recover_kept").replace("{parent}", parent));
        }
        execute(c, maintenance.get("convert_leftovers").replace("{parent}", parent));
        // The per-key lock table the layout's writes take (MariaDB), should no instance have migrated with the layout yet.
        execute(c, sql.get("partition_create_lock"));
        // Step 1, without blocking writes. PostgreSQL: the index ATTACH uses for the parent's key instead of building one under its
        // lock. MariaDB: the parent's primary key, which CONVERT TABLE requires the old table to have.
        String indexDone = maintenance.get("convert_index_done");
        if (indexDone.isBlank() || !exists(c, indexDone)) {
            execute(c, sql.get("convert_index"));
        }
        execute(c, maintenance.get("convert_key"));
        // Rows kept below every expiry (the inbox's quarantined messages) get the expiry the layout keeps them at.
        execute(c, sql.get("convert_kept"));
        if (dialect == Dialect.MARIADB) {
            swapMariadb(c, parent, legacy);
            return;
        }
        long now = now(c);
        long cutover = cutover(c, now);
        execute(c, maintenance.get("convert_unbound"));
        execute(c, maintenance.get("convert_bound").replace("{to}", Long.toString(cutover)));
        execute(c, maintenance.get("convert_validate"));
        execute(c, sql.get("partition_create_table").replace("{parent}", parent).replace("{unique}", "UNIQUE"));
        execute(c, sql.get("partition_create_index").replace("{parent}", parent));
        createAhead(c, parent, List.of(new Partition(legacy, null, cutover)), now);
        c.setAutoCommit(false);
        try {
            execute(c, maintenance.get("convert_lock"));
            execute(c, maintenance.get("convert_rename_old").replace("{partition}", legacy));
            execute(c, maintenance.get("convert_rename_new").replace("{parent}", parent));
            execute(c, maintenance.get("convert_attach_old").replace("{partition}", legacy).replace("{to}", Long.toString(cutover)));
            c.commit();
        } catch (SQLException | RuntimeException e) {
            Transactions.rollbackQuietly(c, e);
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * MariaDB's swap. Its RANGE partitions only ever append, so the parent starts with one placeholder
     * partition below every expiry. Under LOCK TABLES the old table is appended as the partition up to a
     * cut-over read under that lock (so no claim can have passed it), the partitions ahead are appended
     * and the parent takes the table's name; after the lock, a maintenance run drops the placeholder.
     * MariaDB's DDL commits at once: once the old table is converted the rename is tried whatever fails
     * after, so that the table's name is not left without a table.
     */
    private void swapMariadb(Connection c, String parent, String legacy) throws SQLException {
        // Above the kept partition, if the table has one (the owner's CREATE makes it), and below every expiry idem writes.
        execute(c, sql.get("partition_create_table").replace("{parent}", parent).replace("{unique}", "PRIMARY KEY")
                .replace("{partition}", table + "_pconv").replace("{to}", Long.toString(KEPT_BELOW + 1)));
        execute(c, sql.get("partition_create_index").replace("{parent}", parent));
        execute(c, maintenance.get("convert_lock").replace("{parent}", parent));
        try {
            execute(c, sql.get("convert_kept"));
            long now = now(c);
            long cutover = cutover(c, now);
            // The kept rows (below the placeholder's bound, which CONVERT TABLE would refuse) into the parent's kept partition.
            execute(c, sql.get("convert_copy_kept").replace("{parent}", parent));
            execute(c, sql.get("convert_delete_kept"));
            try {
                execute(c, maintenance.get("convert_attach_old").replace("{parent}", parent).replace("{partition}", legacy)
                        .replace("{to}", Long.toString(cutover)));
            } catch (SQLException | RuntimeException e) {
                try {
                    execute(c, sql.get("convert_restore_kept").replace("{parent}", parent));
                } catch (SQLException restore) {
                    e.addSuppressed(restore);
                }
                throw e;
            }
            try {
                createAhead(c, parent, List.of(new Partition(legacy, null, cutover)), now);
            } finally {
                renameConverted(c, parent);
            }
        } finally {
            execute(c, maintenance.get("convert_unlock"));
        }
        maintainLocked(c);
    }

    private void renameConverted(Connection c, String parent) throws SQLException {
        String rename = maintenance.get("convert_rename_new").replace("{parent}", parent);
        try {
            execute(c, rename);
        } catch (SQLException first) {
            try {
                execute(c, rename);
            } catch (SQLException again) {
                first.addSuppressed(again);
                throw new IllegalStateException("table " + table + " was converted into " + parent + " but not renamed back: rename "
                        + parent + " to " + table + " now", first);
            }
        }
    }

    /**
     * The conversion's cut-over: past every expiry the old table holds and past now plus the horizon
     * (every claim until the swap expires before that, its retention being within the horizon), on a
     * partition boundary.
     */
    private long cutover(Connection c, long now) throws SQLException {
        long latest = now + horizonMs;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(maintenance.get("convert_max_expiry"))) {
            if (rs.next()) {
                latest = Math.max(latest, rs.getLong(1) + 1);
            }
        }
        return Math.floorDiv(latest + widthMs - 1, widthMs) * widthMs;
    }

    /** Whether a conversion's parent exists (MariaDB; PostgreSQL's is never left holding rows). */
    private boolean parentExists(Connection c) throws SQLException {
        String query = maintenance.get("convert_parent_exists");
        return !query.isBlank() && exists(c, query.replace("{parent}", table + "_parted"));
    }

    private static boolean exists(Connection c, String query) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            return rs.next();
        }
    }

    private String partitionSql(String statement, String parent, String partition) {
        return statement(statement).replace("{parent}", parent).replace("{partition}", partition);
    }

    /** A maintenance statement, or else one of the owner's. */
    private String statement(String name) {
        return MAINTENANCE.contains(name) ? maintenance.get(name) : sql.get(name);
    }

    private String kind(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(maintenance.get("partition_kind"))) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /**
     * @param maintaining whether the caller holds the maintenance lock: then a detach another session left
     *                    unfinished is finished here; a reader leaves it (it may be under way) and does not list it
     */
    private List<Partition> list(Connection c, boolean maintaining) throws SQLException {
        List<Partition> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(maintenance.get("partition_list"))) {
            List<Partition> unfinished = new ArrayList<>();
            while (rs.next()) {
                String name = rs.getString(1);
                Matcher m = BOUND.matcher(rs.getString(2));
                if (!m.find() || m.group(4) == null) {
                    throw new IllegalStateException("partition " + name + " of " + table + " has a bound idem does not manage: " + rs.getString(2));
                }
                Partition p = new Partition(name, m.group(2) == null ? null : Long.valueOf(m.group(2)), Long.parseLong(m.group(4)));
                if (!rs.getBoolean(3)) {
                    out.add(p);
                } else if (maintaining) {
                    unfinished.add(p);
                }
            }
            for (Partition p : unfinished) {
                // A concurrent detach that did not finish (its session ended): finish it; the partition goes unless a row came meanwhile.
                execute(c, partitionSql("partition_detach_finalize", table, p.name()));
                if (!dropDetached(c, p)) {
                    out.add(p);
                }
            }
        }
        out.sort(Comparator.comparingLong(Partition::to));
        return out;
    }

    private long now(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(maintenance.get("partition_now"))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private boolean holdsLiveLease(Connection c, String partition) throws SQLException {
        if (sql.get("partition_live_rows").isBlank()) {
            return false;
        }
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(partitionSql("partition_live_rows", table, partition))) {
            return rs.next();
        }
    }

    private long estimatedRows(Connection c, String partition) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(partitionSql("partition_estimated_rows", table, partition))) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private boolean tryLock(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(maintenance.get("partition_maintenance_lock"))) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    private void unlock(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(maintenance.get("partition_maintenance_unlock"))) {
            rs.next();
        }
    }

    /** Runs a DDL statement; an empty one is a step this dialect does not have. */
    private static void execute(Connection c, String statement) throws SQLException {
        if (statement.isBlank()) {
            return;
        }
        try (Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }

    private interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} with auto-commit on (DDL that must not run inside a transaction block, and a
     * session lock that must outlive each statement), restoring the connection's setting after.
     */
    private static <T> T autoCommitted(Connection c, Work<T> work) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
            c.commit();
            c.setAutoCommit(true);
        }
        try {
            return work.run();
        } finally {
            if (!autoCommit) {
                c.setAutoCommit(false);
            }
        }
    }

    @Override
    public String toString() {
        return "RetentionPartitions[" + table + ", width=" + width() + ", horizon=" + horizon() + "]";
    }
}
