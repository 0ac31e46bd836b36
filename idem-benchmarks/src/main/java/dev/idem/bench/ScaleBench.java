package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.RetentionPartitions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Part "scale" (opt-in): the key store on PostgreSQL and on MariaDB (each when the run's backends
 * include it, as they do by default) holding a day of traffic. Two tables per database, one
 * unpartitioned (the sweeper deletes expired rows in batches) and one with retention by partition
 * (one partition an hour, dropped whole), each loaded with {@code --rows} completed records (200-byte
 * bodies, expiries spread over the next 24 hours, and one hour's worth, a 24th, already expired).
 * Measured on each: claim+complete of new keys on the empty table and at full size (the ratio is the
 * cost of size), the bytes a record takes, and the purge of the expired hour: rows deleted by the
 * store's own purge (the sweeper's call) against one partition dropped, in time and in WAL written.
 */
final class ScaleBench {
    static final String PLAIN = "idem_scale";
    static final String PARTITIONED = "idem_scale_p";
    private static final Duration WIDTH = Duration.ofHours(1);
    private static final Duration HORIZON = Duration.ofHours(25);
    private static final int THREADS = 8;
    private static final int PURGE_BATCH = 500;

    private final Options options;
    private final Postgres pg;

    ScaleBench(Options options, Postgres pg) {
        this.options = options;
        this.pg = pg;
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        if (options.backends.contains("postgresql")) {
            rows.addAll(run(new PostgresTables(pg)));
        }
        if (options.backends.contains(OwnServerBench.MARIADB)) {
            try (MariadbTables mariadb = new MariadbTables(options.mariadbUrl)) {
                rows.addAll(run(mariadb));
            }
        }
        return rows;
    }

    private List<Row> run(Database db) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (HikariDataSource ds = db.pool(THREADS + 2)) {
            JdbcIdempotencyStore plain = JdbcIdempotencyStore.builder(ds).tableName(PLAIN).build();
            plain.migrate();
            JdbcIdempotencyStore partitioned = JdbcIdempotencyStore.builder(ds).tableName(PARTITIONED)
                    .retentionByPartition(WIDTH, HORIZON).build();
            partitioned.migrate();
            RetentionPartitions partitions = partitioned.retentionPartitions().orElseThrow();
            partitions.maintain();
            if (!partitions.partitioned()) {
                throw new IllegalStateException("the partitioned store's table is not partitioned after migrate and maintain");
            }
            rows.addAll(table(db, ds, plain, PLAIN, "unpartitioned", () -> purgeRowByRow(db, ds, plain)));
            rows.addAll(table(db, ds, partitioned, PARTITIONED, "by partition (1 h)", () -> purgeByDrop(db, ds, partitions)));
        }
        return rows;
    }

    /** What differs between the databases: their pools, the load statement, sizes and the log position. */
    private interface Database {
        String product();

        HikariDataSource pool(int size);

        /** The database's clock, in epoch milliseconds (the store's clock). */
        long nowMillis(Statement st) throws SQLException;

        /** On the partitioned table, a partition of its own for the expired hour [from, to), as maintenance would have made it. */
        void expiredHourPartition(Statement st, String table, long from, long to) throws SQLException;

        /** Inserts {@code rows} completed records, one statement; {@code expiry} is a SQL expression of the row number {@code g}. */
        void insert(Statement st, String table, long rows, long now, String expiry) throws SQLException;

        void analyze(Statement st, String table) throws SQLException;

        /** Heap, indexes and TOAST (or their InnoDB counterparts) of the table and its partitions. */
        long totalBytes(Statement st, String table) throws SQLException;

        /** The write-ahead (redo) log's position in bytes: the difference is the log a step wrote. */
        long logPosition(Statement st) throws SQLException;
    }

    @FunctionalInterface
    private interface Purge {
        Purged run() throws Exception;
    }

    /** What one purge of the expired hour did. */
    private record Purged(long rows, long millis, long walBytes) {
    }

    private List<Row> table(Database db, HikariDataSource ds, JdbcIdempotencyStore store, String table, String layout, Purge purge)
            throws Exception {
        List<Row> rows = new ArrayList<>();
        String label = db.product() + ", " + layout;
        Bench.progress("scale " + label + ": claim+complete on the empty table, " + THREADS + " threads");
        Measured empty = StoreBench.firstExecutions(store, THREADS, options.warmup, options.duration, new ArrayList<>());
        rows.add(new Row("scale", "claim+complete, empty table", label, THREADS, empty, "ops/s", null, Double.NaN, null));
        long expired = options.scaleRows / 24;
        Bench.progress("scale " + label + ": loading " + options.scaleRows + " records (" + expired + " of them expired)");
        long loadStarted = System.nanoTime();
        load(db, ds, table, options.scaleRows, expired);
        long loadMillis = (System.nanoTime() - loadStarted) / 1_000_000;
        long bytes;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            bytes = db.totalBytes(st, table);
        }
        long count = count(ds, table);
        String size = String.format(Locale.ROOT, "%,d rows, %d B a row (heap, indexes, TOAST), loaded in %d s", count,
                count == 0 ? 0 : bytes / count, loadMillis / 1000);
        Bench.progress("scale " + label + ": " + size + "; claim+complete at full size");
        Measured full = StoreBench.firstExecutions(store, THREADS, options.warmup, options.duration, new ArrayList<>());
        rows.add(new Row("scale", "claim+complete, " + millions(count) + " rows", label, THREADS, full, "ops/s", null, Double.NaN, size)
                .compare("empty table", empty));
        Bench.progress("scale " + label + ": purging the expired hour");
        Purged purged = purge.run();
        Measured purgeRate = new Measured(purged.rows(), purged.millis() / 1000.0, Double.NaN, Double.NaN, 0, 1);
        rows.add(new Row("scale", "purge of the expired hour", label, 1, purgeRate, "rows/s", null, Double.NaN,
                String.format(Locale.ROOT, "%,d rows in %,d ms, %,d B of WAL", purged.rows(), purged.millis(), purged.walBytes())));
        return rows;
    }

    /**
     * Completed records straight into the table, one statement: {@code expired} of them with expiries
     * in the hour before the first partition (a partition of their own on the partitioned table, made
     * here as maintenance would have made it an hour ago), the rest over the next 24 hours.
     */
    private void load(Database db, HikariDataSource ds, String table, long rows, long expired) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            long now = db.nowMillis(st);
            long width = WIDTH.toMillis();
            long hourStart = Math.floorDiv(now, width) * width;
            long expiredFrom = hourStart - width;
            if (table.equals(PARTITIONED)) {
                db.expiredHourPartition(st, table, expiredFrom, hourStart);
            }
            db.insert(st, table, rows, now, "CASE WHEN g <= " + expired + " THEN " + expiredFrom + " + (g % " + (width - 1) + ")"
                    + " ELSE " + (now + 60_000) + " + (g % " + (Duration.ofHours(23).toMillis()) + ") END");
            db.analyze(st, table);
        }
    }

    private static Purged purgeRowByRow(Database db, HikariDataSource ds, JdbcIdempotencyStore store) throws SQLException {
        long walBefore = logPosition(db, ds);
        long started = System.nanoTime();
        long total = 0;
        for (int n; (n = store.purge(PURGE_BATCH)) > 0; ) {
            total += n;
        }
        return new Purged(total, (System.nanoTime() - started) / 1_000_000, logPosition(db, ds) - walBefore);
    }

    private static Purged purgeByDrop(Database db, HikariDataSource ds, RetentionPartitions partitions) throws SQLException {
        long walBefore = logPosition(db, ds);
        long started = System.nanoTime();
        RetentionPartitions.Maintenance done = partitions.maintain();
        return new Purged(done.rowsDropped(), (System.nanoTime() - started) / 1_000_000, logPosition(db, ds) - walBefore);
    }

    private static long logPosition(Database db, HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            return db.logPosition(st);
        }
    }

    /** The columns every load writes, in the order of {@link Database#insert}'s SELECT. */
    static final String COLUMNS = "(scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at, status, headers, body)";

    private static final class PostgresTables implements Database {
        private final Postgres pg;

        PostgresTables(Postgres pg) {
            this.pg = pg;
        }

        @Override
        public String product() {
            return "PostgreSQL";
        }

        @Override
        public HikariDataSource pool(int size) {
            return pg.pool(size);
        }

        @Override
        public long nowMillis(Statement st) throws SQLException {
            return queryLong(st, "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint");
        }

        @Override
        public void expiredHourPartition(Statement st, String table, long from, long to) throws SQLException {
            st.execute("CREATE TABLE " + table + "_expired PARTITION OF " + table + " FOR VALUES FROM (" + from + ") TO (" + to + ")");
        }

        @Override
        public void insert(Statement st, String table, long rows, long now, String expiry) throws SQLException {
            st.execute("INSERT INTO " + table + " " + COLUMNS
                    + " SELECT 'bench-user\u001fPOST /orders', 'k' || g, 'f', 1, g, 1, e - 1, e, " + now + ", 201,"
                    + " 'Content-Type: application/json\n', decode(repeat('ab', 100), 'hex')"
                    + " FROM (SELECT g, " + expiry + " AS e FROM generate_series(1, " + rows + ") AS g) AS s");
        }

        @Override
        public void analyze(Statement st, String table) throws SQLException {
            st.execute("ANALYZE " + table);
        }

        @Override
        public long totalBytes(Statement st, String table) throws SQLException {
            // A partitioned table's own size is 0: its partitions' sizes add up (pg_partition_tree lists none of a plain table).
            return queryLong(st, "SELECT CASE WHEN c.relkind = 'p' THEN (SELECT sum(pg_total_relation_size(t.relid)) FROM pg_partition_tree(c.oid) t)"
                    + " ELSE pg_total_relation_size(c.oid) END::bigint FROM pg_class c WHERE c.oid = '" + table + "'::regclass");
        }

        @Override
        public long logPosition(Statement st) throws SQLException {
            return queryLong(st, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
        }
    }

    /**
     * MariaDB, in a database of the run's own ({@code idem_bench_<pid>}, dropped at the end). Rows come
     * from the Sequence engine's {@code seq_1_to_N}; sizes are InnoDB's data and index lengths after
     * {@code ANALYZE TABLE} (estimates, as the server keeps them); the log position is InnoDB's redo LSN.
     */
    private static final class MariadbTables implements Database, AutoCloseable {
        private final String admin;
        private final String database = "idem_bench_scale_" + ProcessHandle.current().pid();

        MariadbTables(String admin) throws SQLException {
            this.admin = admin;
            try (Connection c = java.sql.DriverManager.getConnection(admin); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database);
                st.execute("CREATE DATABASE " + database);
            }
        }

        @Override
        public String product() {
            return "MariaDB";
        }

        @Override
        public HikariDataSource pool(int size) {
            return OwnServerBench.mariadbPool(OwnServerBench.withDatabase(admin, database), size);
        }

        @Override
        public long nowMillis(Statement st) throws SQLException {
            return queryLong(st, "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)");
        }

        /** The first partition (no lower bound) split at {@code to}: the expired hour below, the live rows above. */
        @Override
        public void expiredHourPartition(Statement st, String table, long from, long to) throws SQLException {
            String first;
            long bound;
            try (ResultSet rs = st.executeQuery("SELECT PARTITION_NAME, PARTITION_DESCRIPTION FROM information_schema.PARTITIONS"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + table + "' ORDER BY PARTITION_ORDINAL_POSITION LIMIT 1")) {
                rs.next();
                first = rs.getString(1);
                bound = Long.parseLong(rs.getString(2));
            }
            if (bound <= to) {
                throw new IllegalStateException("the first partition ends at " + bound + ", not after the expired hour's end " + to);
            }
            st.execute("ALTER TABLE " + table + " REORGANIZE PARTITION " + first + " INTO (PARTITION " + table + "_expired VALUES LESS THAN ("
                    + to + "), PARTITION " + first + " VALUES LESS THAN (" + bound + "))");
        }

        @Override
        public void insert(Statement st, String table, long rows, long now, String expiry) throws SQLException {
            st.execute("INSERT INTO " + table + " " + COLUMNS
                    + " SELECT 'bench-user\u001fPOST /orders', CONCAT('k', g), 'f', 1, g, 1, e - 1, e, " + now + ", 201,"
                    + " 'Content-Type: application/json\n', UNHEX(REPEAT('ab', 100))"
                    + " FROM (SELECT g, " + expiry + " AS e FROM (SELECT seq AS g FROM seq_1_to_" + rows + ") AS n) AS s");
        }

        @Override
        public void analyze(Statement st, String table) throws SQLException {
            st.execute("ANALYZE TABLE " + table);
        }

        @Override
        public long totalBytes(Statement st, String table) throws SQLException {
            return queryLong(st, "SELECT CAST(SUM(DATA_LENGTH + INDEX_LENGTH) AS SIGNED) FROM information_schema.PARTITIONS"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + table + "'");
        }

        @Override
        public long logPosition(Statement st) throws SQLException {
            try (ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'")) {
                return rs.next() ? rs.getLong(2) : 0;
            }
        }

        @Override
        public void close() throws SQLException {
            try (Connection c = java.sql.DriverManager.getConnection(admin); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database);
            }
        }
    }

    private static long count(HikariDataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            return queryLong(st, "SELECT count(*) FROM " + table);
        }
    }

    private static long queryLong(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String millions(long rows) {
        return rows >= 1_000_000 ? String.format(Locale.ROOT, "%.0f M", rows / 1e6) : String.format(Locale.ROOT, "%,d", rows);
    }
}
