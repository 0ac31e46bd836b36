package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Sweeper;
import dev.idem.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Part 4: a steady run of new keys through {@link Idem} with a 5 s retention and the sweeper every
 * second; the table's row count and total size (heap, indexes, TOAST) sampled while it runs.
 */
final class GrowthBench {
    static final Duration RETENTION = Duration.ofSeconds(5);
    static final Duration LEASE = Duration.ofSeconds(1);
    static final Duration SWEEP = Duration.ofSeconds(1);
    static final int THREADS = 4;
    static final String TABLE = "idem_growth";

    /** One sample: seconds since start, rows, bytes, keys completed so far, records purged so far. */
    record Sample(double seconds, long rows, long bytes, long completed, long purged) {
    }

    private final Options options;
    private final Postgres pg;
    final List<Sample> samples = new ArrayList<>();
    private String verdict;

    GrowthBench(Options options, Postgres pg) {
        this.options = options;
        this.pg = pg;
    }

    List<Row> run() throws Exception {
        try (HikariDataSource ds = pg.pool(THREADS + 2)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(TABLE).build();
            store.migrate();
            Idem idem = Idem.builder().store(store).lease(LEASE).retention(RETENTION).build();
            AtomicLong purged = new AtomicLong();
            AtomicLong completed = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            boolean autovacuum = "on".equals(pg.setting("autovacuum"));
            boolean vacuum = options.vacuum && !autovacuum;
            Bench.progress("growth: " + options.growth.toSeconds() + " s of new keys, retention " + RETENTION.toSeconds()
                    + " s, sweeper every " + SWEEP.toSeconds() + " s" + (vacuum ? ", VACUUM every 10 s (autovacuum is off)" : ""));
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Thread w = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                    while (!stop.get()) {
                        Outcome o = idem.execute(StoreBench.SCOPE, IdempotencyKey.of(StoreBench.newKey(random)), StoreBench.FINGERPRINT,
                                run -> StoreBench.RESPONSE);
                        if (o instanceof Outcome.Executed) {
                            completed.incrementAndGet();
                        }
                    }
                }, "growth-" + t);
                w.setDaemon(true);
                workers.add(w);
            }
            long start = System.nanoTime();
            try (Sweeper sweeper = Sweeper.builder(store).interval(SWEEP).batchSize(500).listener(new dev.idem.IdemListener() {
                @Override
                public void purged(int count) {
                    purged.addAndGet(count);
                }
            }).build().start()) {
                workers.forEach(Thread::start);
                long sampleEvery = Math.max(1000, options.growth.toMillis() / 12);
                long lastVacuum = System.nanoTime();
                long end = start + options.growth.toNanos();
                try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                    while (System.nanoTime() < end) {
                        Thread.sleep(sampleEvery);
                        if (vacuum && System.nanoTime() - lastVacuum >= 10_000_000_000L) {
                            st.execute("VACUUM " + TABLE);
                            lastVacuum = System.nanoTime();
                        }
                        try (ResultSet rs = st.executeQuery("SELECT count(*), pg_total_relation_size('" + TABLE + "') FROM " + TABLE)) {
                            rs.next();
                            samples.add(new Sample((System.nanoTime() - start) / 1e9, rs.getLong(1), rs.getLong(2), completed.get(),
                                    purged.get()));
                        }
                    }
                }
            } finally {
                stop.set(true);
                for (Thread w : workers) {
                    w.join(10_000);
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Measured m = new Measured(completed.get(), seconds, 0, 0, 0, 1);
            verdict = verdict(vacuum);
            List<Row> rows = new ArrayList<>();
            rows.add(new Row("growth", "new keys, retention 5 s, sweeper 1 s", "PostgreSQL", THREADS, m, "ops/s", null, Double.NaN, verdict));
            return rows;
        }
    }

    /** Flat if the last third's peak is within 25 % of the middle third's, in rows and bytes. */
    private String verdict(boolean vacuum) {
        int n = samples.size();
        if (n < 6) {
            return "too few samples to judge";
        }
        List<Sample> middle = samples.subList(n / 3, 2 * n / 3);
        List<Sample> last = samples.subList(2 * n / 3, n);
        long midRows = middle.stream().mapToLong(Sample::rows).max().orElse(0);
        long lastRows = last.stream().mapToLong(Sample::rows).max().orElse(0);
        long midBytes = middle.stream().mapToLong(Sample::bytes).max().orElse(0);
        long lastBytes = last.stream().mapToLong(Sample::bytes).max().orElse(0);
        boolean flatRows = lastRows <= midRows * 1.25;
        boolean flatBytes = lastBytes <= midBytes * 1.25;
        return String.format(Locale.ROOT, "rows %s (%,d -> %,d), size %s (%s -> %s)%s",
                flatRows ? "flat" : "GROWING", midRows, lastRows, flatBytes ? "flat" : "GROWING",
                mb(midBytes), mb(lastBytes), vacuum ? ", VACUUM every 10 s" : "");
    }

    static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
    }

    String samplesText() {
        StringBuilder out = new StringBuilder("growth samples (s: rows, total size, completed, purged):\n");
        for (Sample s : samples) {
            out.append(String.format(Locale.ROOT, "  %5.1f s: %,9d rows  %9s  completed %,10d  purged %,10d%n", s.seconds(), s.rows(),
                    mb(s.bytes()), s.completed(), s.purged()));
        }
        return out.toString();
    }
}
