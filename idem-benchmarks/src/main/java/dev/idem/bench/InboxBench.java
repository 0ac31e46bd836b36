package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxBatchHandler;
import dev.idem.inbox.InboxHandler;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Part 3: one consumer on PostgreSQL. Each message's effect is one row in {@code bench_event}: per
 * message ({@link Inbox#process}), batched ({@link Inbox#processBatch} with a handler per message, and
 * {@link Inbox#processBatchAtOnce} with one JDBC batch), a plain insert of the row
 * without dedup, and pgbench inserting the same rows (claim rows + event rows) per message and batched.
 */
final class InboxBench {
    static final String CONSUMER = "bench";
    static final int[] BATCHES = {100, 500};
    static final Duration RETENTION = Duration.ofDays(7);
    static final String INSERT_EVENT = "INSERT INTO bench_event (consumer, message_id, amount) VALUES (?, ?, ?)";
    static final String INSERT_EVENTS = "INSERT INTO bench_event (consumer, message_id, amount) SELECT ?, unnest(?::text[]), 100";

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
            InboxBatchHandler batchHandler = (c, messages) -> {
                try (PreparedStatement ps = c.prepareStatement(INSERT_EVENT)) {
                    for (InboxMessage m : messages) {
                        ps.setString(1, CONSUMER);
                        ps.setString(2, m.id());
                        ps.setInt(3, 100);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            };
            // The same rows as the JDBC batch, written by one statement with the ids bound as one array:
            // what pgbench's generate_series insert does, so the line compares the inbox, not the handler.
            InboxBatchHandler arrayHandler = (c, messages) -> {
                java.sql.Array ids = c.createArrayOf("text", messages.stream().map(InboxMessage::id).toArray());
                try (PreparedStatement ps = c.prepareStatement(INSERT_EVENTS)) {
                    ps.setString(1, CONSUMER);
                    ps.setArray(2, ids);
                    ps.executeUpdate();
                } finally {
                    ids.free();
                }
            };
            for (int size : BATCHES) {
                clear();
                Bench.progress("inbox batched " + size + " (Inbox.processBatch, a statement per message)");
                Measured batched = batched(size, messages -> inbox.processBatch(CONSUMER, messages, handler));
                clear();
                Bench.progress("inbox batched " + size + " (Inbox.processBatchAtOnce, one JDBC batch)");
                Measured atOnce = batched(size, messages -> inbox.processBatchAtOnce(CONSUMER, messages, batchHandler));
                Measured atOnceArray;
                Measured bench = null;
                if (options.pgbench && PgBench.available()) {
                    // The line the target is set on and its pgbench line, measured in turns.
                    Bench.progress("inbox batched " + size + " (processBatchAtOnce, one array-bound statement) and pgbench batched, in turns");
                    Measured[] pair = OwnServerBench.inTurns(options,
                            (warmup, window, latencies) -> {
                                clear();
                                return batched(size, warmup, window, latencies, messages -> inbox.processBatchAtOnce(CONSUMER, messages, arrayHandler));
                            },
                            (warmup, window, latencies) -> {
                                clear();
                                return PgBench.run(pg, pgbenchScript(size), 1, warmup, window, Map.of(), work, latencies).withUnits(size);
                            });
                    atOnceArray = pair[0];
                    bench = pair[1];
                } else {
                    clear();
                    Bench.progress("inbox batched " + size + " (Inbox.processBatchAtOnce, one array-bound statement)");
                    atOnceArray = batched(size, messages -> inbox.processBatchAtOnce(CONSUMER, messages, arrayHandler));
                }
                rows.add(new Row("inbox", "batched " + size + ", processBatch (handler per message)", "PostgreSQL", 1, batched, "msg/s",
                        null, Double.NaN, ofPgbench("latency per batch", batched, bench)).compare("per message", perMessage));
                rows.add(new Row("inbox", "batched " + size + ", processBatchAtOnce (JDBC batch)", "PostgreSQL", 1, atOnce, "msg/s",
                        null, Double.NaN, ofPgbench("latency per batch", atOnce, bench)).compare("per message", perMessage));
                rows.add(new Row("inbox", "batched " + size + ", processBatchAtOnce (1 array-bound statement)", "PostgreSQL", 1, atOnceArray,
                        "msg/s", null, Double.NaN, ofPgbench("latency per batch", atOnceArray, bench)).compare("per message", perMessage));
                if (bench != null) {
                    rows.add(new Row("inbox", "pgbench batched " + size + " (same rows, 1 tx)", "PostgreSQL", 1, bench, "msg/s", null,
                            Double.NaN, "latency per batch"));
                }
            }
        }
        return rows;
    }

    private Measured batched(int size, Function<List<InboxMessage>, List<InboxOutcome>> process)
            throws InterruptedException {
        return batched(size, options.warmup, options.duration, new ArrayList<>(), process);
    }

    private static Measured batched(int size, Duration warmup, Duration window, List<Latencies> latencies,
                                    Function<List<InboxMessage>, List<InboxOutcome>> process) throws InterruptedException {
        return LoadLoop.run(1, warmup, window, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                List<InboxMessage> batch = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    batch.add(InboxMessage.of(StoreBench.newKey(random)));
                }
                for (InboxOutcome o : process.apply(batch)) {
                    if (o.status() != InboxOutcome.Status.PROCESSED) {
                        throw new AssertionError("a new message was not processed: " + o.status());
                    }
                }
            };
        }, latencies).withUnits(size);
    }

    private static String ofPgbench(String note, Measured m, Measured bench) {
        return bench == null ? note : String.format(Locale.ROOT, "%s; %.0f%% of pgbench batched", note, 100 * m.rate() / bench.rate());
    }

    private void clear() throws Exception {
        pg.execute("TRUNCATE bench_event", "TRUNCATE idem_inbox");
    }

    /**
     * The same rows as the inbox writes for {@code n} messages, in one transaction: the claim rows
     * (ON CONFLICT DO NOTHING) and one event row per message. The ids are spread over the key space
     * like the Java side's random ids (a 64-bit hash of the text of the batch's random base plus the
     * row's number, as text): ids {@code base-1 … base-n} would sit side by side in both primary keys, and inserting
     * 500 adjacent keys cost PostgreSQL about a third less CPU than 500 scattered ones, which the
     * comparison then credited to pgbench rather than to the rows.
     */
    static String pgbenchScript(int n) {
        String now = "(extract(epoch from now()) * 1000)::bigint";
        // hashtextextended, not hashint8extended: for cross-type hash joins, PostgreSQL hashes an int8 as the
        // xor of its two 32-bit halves, so a run's tens of thousands of ids collided (a duplicate event key).
        String id = "(hashtextextended(CAST(CAST(:base AS bigint) + g AS text), 0) & 9223372036854775807)::text";
        return "\\set base random(1, 4611686018427387903)\n"
                + "BEGIN;\n"
                + "INSERT INTO idem_inbox (consumer, message_id, state, seen_at, expires_at) SELECT '" + CONSUMER + "', " + id + ", 1, "
                + now + ", " + now + " + " + RETENTION.toMillis() + " FROM generate_series(1, " + n + ") g"
                + " ON CONFLICT (consumer, message_id) DO NOTHING;\n"
                + "INSERT INTO bench_event (consumer, message_id, amount) SELECT '" + CONSUMER + "', " + id + ", 100 FROM generate_series(1, "
                + n + ") g;\n"
                + "COMMIT;\n";
    }
}
