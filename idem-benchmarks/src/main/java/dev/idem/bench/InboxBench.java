package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Inbox;
import dev.idem.jdbc.InboxHandler;
import dev.idem.jdbc.InboxMessage;
import dev.idem.jdbc.InboxOutcome;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Part 3: one consumer on PostgreSQL. Each message's effect is one row in {@code bench_event}: per
 * message ({@link Inbox#process}), batched ({@link Inbox#processBatch}), a plain insert of the row
 * without dedup, and pgbench inserting the same rows (claim rows + event rows) per message and batched.
 */
final class InboxBench {
    static final String CONSUMER = "bench";
    static final int[] BATCHES = {100, 500};
    static final Duration RETENTION = Duration.ofDays(7);
    static final String INSERT_EVENT = "INSERT INTO bench_event (consumer, message_id, amount) VALUES (?, ?, ?)";

    private final Options options;
    private final Postgres pg;
    private final Path work;

    InboxBench(Options options, Postgres pg, Path work) {
        this.options = options;
        this.pg = pg;
        this.work = work;
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        pg.execute("CREATE TABLE IF NOT EXISTS bench_event (consumer text NOT NULL, message_id text NOT NULL, amount integer NOT NULL,"
                + " PRIMARY KEY (consumer, message_id))");
        try (HikariDataSource ds = pg.pool(2)) {
            Inbox inbox = Inbox.builder(ds).retention(RETENTION).build();
            inbox.migrate();
            InboxHandler handler = (c, m) -> {
                try (PreparedStatement ps = c.prepareStatement(INSERT_EVENT)) {
                    ps.setString(1, CONSUMER);
                    ps.setString(2, m.id());
                    ps.setInt(3, 100);
                    ps.executeUpdate();
                }
            };
            clear();
            Bench.progress("inbox per message (Inbox.process)");
            Measured perMessage = LoadLoop.run(1, options.warmup, options.duration, t -> {
                SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                return () -> {
                    InboxOutcome o = inbox.process(CONSUMER, StoreBench.newKey(random), handler);
                    if (o.status() != InboxOutcome.Status.PROCESSED) {
                        throw new AssertionError("a new message was not processed: " + o.status());
                    }
                };
            });
            clear();
            Bench.progress("inbox plain insert per message, no dedup");
            Measured plain = LoadLoop.run(1, options.warmup, options.duration, t -> {
                SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                return () -> {
                    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(INSERT_EVENT)) {
                        ps.setString(1, CONSUMER);
                        ps.setString(2, StoreBench.newKey(random));
                        ps.setInt(3, 100);
                        ps.executeUpdate();
                    }
                };
            });
            rows.add(new Row("inbox", "per message (Inbox.process)", "PostgreSQL", 1, perMessage, "msg/s", null, Double.NaN, null)
                    .compare("plain insert", plain));
            rows.add(new Row("inbox", "plain insert per message, no dedup", "PostgreSQL", 1, plain, "msg/s", null, Double.NaN, null));
            Measured pgbenchSingle = null;
            if (options.pgbench && PgBench.available()) {
                clear();
                Bench.progress("inbox pgbench per message");
                pgbenchSingle = PgBench.run(pg, pgbenchScript(1), 1, options.warmup, options.duration, Map.of(), work);
                rows.add(new Row("inbox", "pgbench per message (claim + row, 1 tx)", "PostgreSQL", 1, pgbenchSingle, "msg/s", null,
                        Double.NaN, null));
            }
            for (int size : BATCHES) {
                clear();
                Bench.progress("inbox batched " + size + " (Inbox.processBatch)");
                Measured batched = LoadLoop.run(1, options.warmup, options.duration, t -> {
                    SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                    return () -> {
                        List<InboxMessage> batch = new ArrayList<>(size);
                        for (int i = 0; i < size; i++) {
                            batch.add(InboxMessage.of(StoreBench.newKey(random)));
                        }
                        List<InboxOutcome> out = inbox.processBatch(CONSUMER, batch, handler);
                        for (InboxOutcome o : out) {
                            if (o.status() != InboxOutcome.Status.PROCESSED) {
                                throw new AssertionError("a new message was not processed: " + o.status());
                            }
                        }
                    };
                }).withUnits(size);
                Row row = new Row("inbox", "batched " + size + " (Inbox.processBatch)", "PostgreSQL", 1, batched, "msg/s", null,
                        Double.NaN, "latency per batch").compare("per message", perMessage);
                rows.add(row);
                if (options.pgbench && PgBench.available()) {
                    clear();
                    Bench.progress("inbox pgbench batched " + size);
                    Measured bench = PgBench.run(pg, pgbenchScript(size), 1, options.warmup, options.duration, Map.of(), work).withUnits(size);
                    rows.add(new Row("inbox", "pgbench batched " + size + " (same rows, 1 tx)", "PostgreSQL", 1, bench, "msg/s", null,
                            Double.NaN, "latency per batch"));
                    rows.set(rows.indexOf(row), new Row(row.part(), row.name(), row.backend(), 1, batched, "msg/s", "per message",
                            row.ratio(), String.format("latency per batch; %.0f%% of pgbench batched", 100 * batched.rate() / bench.rate())));
                }
            }
        }
        return rows;
    }

    private void clear() throws Exception {
        pg.execute("TRUNCATE bench_event", "TRUNCATE idem_inbox");
    }

    /**
     * The same rows as the inbox writes for {@code n} messages, in one transaction: the claim rows
     * (ON CONFLICT DO NOTHING) and one event row per message.
     */
    static String pgbenchScript(int n) {
        String now = "(extract(epoch from now()) * 1000)::bigint";
        return "\\set base random(1, 9223372036854775806)\n"
                + "BEGIN;\n"
                + "INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at) SELECT '" + CONSUMER + "', :base::text || '-' || g, 1, "
                + now + ", " + now + " + " + RETENTION.toMillis() + " FROM generate_series(1, " + n + ") g"
                + " ON CONFLICT (consumer, message_id) DO NOTHING;\n"
                + "INSERT INTO bench_event (consumer, message_id, amount) SELECT '" + CONSUMER + "', :base::text || '-' || g, 100 FROM generate_series(1, "
                + n + ") g;\n"
                + "COMMIT;\n";
    }
}
