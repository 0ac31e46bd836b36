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
 * Part "scale" (opt-in): the key store on PostgreSQL holding a day of traffic. Two tables, one
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
        try (HikariDataSource ds = pg.pool(THREADS + 2)) {
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
            rows.addAll(table(ds, plain, PLAIN, "unpartitioned", () -> purgeRowByRow(ds, plain)));
            rows.addAll(table(ds, partitioned, PARTITIONED, "by partition (1 h)", () -> purgeByDrop(ds, partitions)));
        }
        return rows;
    }

    @FunctionalInterface
    private interface Purge {
        Purged run() throws Exception;
    }

    /** What one purge of the expired hour did. */
    private record Purged(long rows, long millis, long walBytes) {
    }

    private List<Row> table(HikariDataSource ds, JdbcIdempotencyStore store, String table, String layout, Purge purge) throws Exception {
        List<Row> rows = new ArrayList<>();
        String label = "PostgreSQL, " + layout;
        Bench.progress("scale " + layout + ": claim+complete on the empty table, " + THREADS + " threads");
        Measured empty = StoreBench.firstExecutions(store, THREADS, options.warmup, options.duration, new ArrayList<>());
        rows.add(new Row("scale", "claim+complete, empty table", label, THREADS, empty, "ops/s", null, Double.NaN, null));
        long expired = options.scaleRows / 24;
        Bench.progress("scale " + layout + ": loading " + options.scaleRows + " records (" + expired + " of them expired)");
        long loadStarted = System.nanoTime();
        load(ds, table, options.scaleRows, expired);
        long loadMillis = (System.nanoTime() - loadStarted) / 1_000_000;
        long bytes = totalBytes(ds, table);
        long count = count(ds, table);
        String size = String.format(Locale.ROOT, "%,d rows, %d B a row (heap, indexes, TOAST), loaded in %d s", count,
                count == 0 ? 0 : bytes / count, loadMillis / 1000);
        Bench.progress("scale " + layout + ": " + size + "; claim+complete at full size");
        Measured full = StoreBench.firstExecutions(store, THREADS, options.warmup, options.duration, new ArrayList<>());
        rows.add(new Row("scale", "claim+complete, " + millions(count) + " rows", label, THREADS, full, "ops/s", null, Double.NaN, size)
                .compare("empty table", empty));
        Bench.progress("scale " + layout + ": purging the expired hour");
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
    private void load(HikariDataSource ds, String table, long rows, long expired) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            long now = queryLong(st, "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint");
            long width = WIDTH.toMillis();
            long hourStart = Math.floorDiv(now, width) * width;
            long expiredFrom = hourStart - width;
            if (table.equals(PARTITIONED)) {
                st.execute("CREATE TABLE " + table + "_expired PARTITION OF " + table + " FOR VALUES FROM (" + expiredFrom + ") TO ("
                        + hourStart + ")");
            }
            String body = "decode(repeat('ab', 100), 'hex')";
            st.execute("INSERT INTO " + table + " (scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at,"
                    + " created_at, status, headers, body)"
                    + " SELECT 'bench-user\u001fPOST /orders', 'k' || g, 'f', 1, g, 1, e - 1, e, " + now + ", 201,"
                    + " 'Content-Type: application/json\n', " + body
                    + " FROM (SELECT g, CASE WHEN g <= " + expired + " THEN " + expiredFrom + " + (g % " + (width - 1) + ")"
                    + " ELSE " + (now + 60_000) + " + (g % " + (Duration.ofHours(23).toMillis()) + ") END AS e"
                    + " FROM generate_series(1, " + rows + ") AS g) AS s");
            st.execute("ANALYZE " + table);
        }
    }

    private static Purged purgeRowByRow(HikariDataSource ds, JdbcIdempotencyStore store) throws SQLException {
        long walBefore = walPosition(ds);
        long started = System.nanoTime();
        long total = 0;
        for (int n; (n = store.purge(PURGE_BATCH)) > 0; ) {
            total += n;
        }
        return new Purged(total, (System.nanoTime() - started) / 1_000_000, walPosition(ds) - walBefore);
    }

    private static Purged purgeByDrop(HikariDataSource ds, RetentionPartitions partitions) throws SQLException {
        long walBefore = walPosition(ds);
        long started = System.nanoTime();
        RetentionPartitions.Maintenance done = partitions.maintain();
        return new Purged(done.rowsDropped(), (System.nanoTime() - started) / 1_000_000, walPosition(ds) - walBefore);
    }

    private static long walPosition(HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            return queryLong(st, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
        }
    }

    private static long totalBytes(HikariDataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            // A partitioned table's own size is 0: its partitions' sizes add up (pg_partition_tree lists none of a plain table).
            return queryLong(st, "SELECT CASE WHEN c.relkind = 'p' THEN (SELECT sum(pg_total_relation_size(t.relid)) FROM pg_partition_tree(c.oid) t)"
                    + " ELSE pg_total_relation_size(c.oid) END::bigint FROM pg_class c WHERE c.oid = '" + table + "'::regclass");
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
