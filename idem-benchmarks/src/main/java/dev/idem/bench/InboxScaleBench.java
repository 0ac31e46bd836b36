package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxHandler;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.RetentionPartitions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Part "scale-inbox" (opt-in, PostgreSQL): the inbox holding {@code --rows} processed messages of one
 * consumer, unpartitioned (the sweeper deletes expired rows in batches) and with retention by partition
 * (one partition an hour, dropped whole), as {@code --layouts} asks. Expiries are spread over the next
 * 23 hours, and one hour's worth, a 24th, is already expired. Measured on each, on the empty table and
 * at full size: {@code Inbox.process} of new message ids with a handler that writes nothing (the
 * inbox's own claim and commit: rate, p50, p99), the redelivery of an old message (answered
 * {@code DUPLICATE}, ids drawn over the whole table), the bytes a row takes, and the purge of the
 * expired hour, row by row through {@code Inbox.purge} against dropping its partition, in time and in
 * WAL (the server's whole log).
 */
final class InboxScaleBench {
    private static final String PLAIN = "idem_scale_inbox";
    private static final String PARTITIONED = "idem_scale_inbox_p";
    private static final String CONSUMER = "ledger";
    private static final Duration WIDTH = Duration.ofHours(1);
    private static final Duration HORIZON = Duration.ofHours(25);
    private static final Duration RETENTION = Duration.ofHours(24);
    private static final long SPREAD = Duration.ofHours(23).toMillis();
    private static final long FIRST_EXPIRY = 60_000;
    private static final int THREADS = 8;
    private static final InboxHandler WRITES_NOTHING = (c, m) -> { };

    private final Options options;
    private final Postgres pg;

    InboxScaleBench(Options options, Postgres pg) {
        this.options = options;
        this.pg = pg;
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        try (HikariDataSource ds = pg.pool(THREADS + 2)) {
            if (options.scaleLayouts.contains("unpartitioned")) {
                Inbox inbox = Inbox.builder(ds).tableName(PLAIN).quarantineTableName(PLAIN + "_quarantine").retention(RETENTION).build();
                inbox.migrate();
                rows.addAll(table(ds, inbox, PLAIN, "unpartitioned", null));
            }
            if (options.scaleLayouts.contains("partitioned")) {
                Inbox inbox = Inbox.builder(ds).tableName(PARTITIONED).quarantineTableName(PARTITIONED + "_quarantine").retention(RETENTION)
                        .retentionByPartition(WIDTH, HORIZON).build();
                inbox.migrate();
                RetentionPartitions partitions = inbox.retentionPartitions().orElseThrow();
                partitions.maintain();
                if (!partitions.partitioned()) {
                    throw new IllegalStateException("the partitioned inbox's table is not partitioned after migrate and maintain");
                }
                rows.addAll(table(ds, inbox, PARTITIONED, "by partition (1 h)", partitions));
            }
        }
        return rows;
    }

    private List<Row> table(HikariDataSource ds, Inbox inbox, String table, String layout, RetentionPartitions partitions) throws Exception {
        List<Row> rows = new ArrayList<>();
        String label = "PostgreSQL inbox, " + layout;
        Bench.progress("scale-inbox " + label + ": new messages on the empty table, " + THREADS + " threads");
        Measured empty = newMessages(inbox);
        rows.add(new Row("scale-inbox", "new message, empty table", label, THREADS, empty, "msg/s", null, Double.NaN,
                "Inbox.process, a handler that writes nothing"));

        long total = options.scaleRows;
        long expired = total / 24;
        Bench.progress("scale-inbox " + label + ": loading " + total + " messages (" + expired + " of them expired)");
        long loadStarted = System.nanoTime();
        long now;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            now = ScaleBench.queryLong(st, "SELECT CAST(extract(epoch FROM clock_timestamp()) * 1000 AS bigint)");
            long width = WIDTH.toMillis();
            long hourStart = Math.floorDiv(now, width) * width;
            long expiredFrom = hourStart - width;
            if (partitions != null) {
                st.execute("CREATE TABLE " + table + "_expired PARTITION OF " + table + " FOR VALUES FROM (" + expiredFrom + ") TO (" + hourStart + ")");
            }
            st.execute("INSERT INTO " + table + " (consumer, message_id, state, seen_at, expires_at)"
                    + " SELECT '" + CONSUMER + "', 'm' || g, 1, " + now + ", CASE WHEN g <= " + expired
                    + " THEN " + expiredFrom + " + (g % " + (width - 1) + ")"
                    + " ELSE " + (now + FIRST_EXPIRY) + " + (g - " + expired + ") * " + SPREAD + " / " + Math.max(1, total - expired) + " END"
                    + " FROM generate_series(CAST(1 AS bigint), " + total + ") AS g");
            st.execute("ANALYZE " + table);
        }
        long loadMillis = (System.nanoTime() - loadStarted) / 1_000_000;
        long bytes;
        long count;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            bytes = partitions == null ? ScaleBench.queryLong(st, "SELECT pg_total_relation_size('" + table + "')")
                    : ScaleBench.queryLong(st, "SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits WHERE inhparent = '" + table + "'::regclass");
            count = ScaleBench.queryLong(st, "SELECT count(*) FROM " + table);
        }
        String size = String.format(Locale.ROOT, "%,d rows, %d B a row (heap, indexes), loaded in %d s", count, count == 0 ? 0 : bytes / count,
                loadMillis / 1000);
        Bench.progress("scale-inbox " + label + ": " + size + "; new messages at full size");
        Measured full = newMessages(inbox);
        rows.add(new Row("scale-inbox", "new message, " + ScaleBench.millions(count) + " rows", label, THREADS, full, "msg/s", null, Double.NaN, size)
                .compare("empty table", empty));

        Bench.progress("scale-inbox " + label + ": redeliveries of old messages at full size");
        long firstLive = Math.min(total, expired + 1 + total / 10);
        Measured redelivered = LoadLoop.run(THREADS, options.warmup, options.duration, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                InboxOutcome o = inbox.process(CONSUMER, "m" + random.nextLong(firstLive, total + 1), WRITES_NOTHING);
                if (o.status() != InboxOutcome.Status.DUPLICATE) {
                    throw new AssertionError("an old message was not answered DUPLICATE: " + o.status());
                }
            };
        });
        rows.add(new Row("scale-inbox", "redelivery of an old message, " + ScaleBench.millions(count) + " rows", label, THREADS, redelivered, "msg/s",
                null, Double.NaN, String.format(Locale.ROOT, "ids drawn at random over %,d loaded messages; DUPLICATE", total - firstLive + 1))
                .compare("new message, full size", full));

        Bench.progress("scale-inbox " + label + ": purging the expired hour");
        long walBefore = walPosition(ds);
        long started = System.nanoTime();
        long purged = 0;
        if (partitions == null) {
            purged = ScaleBench.sweepUntilShort(inbox);
        } else {
            purged = partitions.maintain().rowsDropped();
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        long wal = walPosition(ds) - walBefore;
        rows.add(new Row("scale-inbox", "purge of the expired hour", label, 1, new Measured(purged, millis / 1000.0, Double.NaN, Double.NaN, 0, 1),
                "rows/s", null, Double.NaN, String.format(Locale.ROOT, "%,d rows in %,d ms, %,d B of WAL (whole server)%s", purged, millis, wal,
                        partitions == null ? ", row by row (one Sweeper run, batches of 500)" : ", the expired hour's partition dropped")));
        return rows;
    }

    private Measured newMessages(Inbox inbox) throws InterruptedException {
        return LoadLoop.run(THREADS, options.warmup, options.duration, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                InboxOutcome o = inbox.process(CONSUMER, StoreBench.newKey(random), WRITES_NOTHING);
                if (o.status() != InboxOutcome.Status.PROCESSED) {
                    throw new AssertionError("a new message was not processed: " + o.status());
                }
            };
        });
    }

    private static long walPosition(HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            return ScaleBench.queryLong(st, "SELECT CAST(pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS bigint)");
        }
    }

}
