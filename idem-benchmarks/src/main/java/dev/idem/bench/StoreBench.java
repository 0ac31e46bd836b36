package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.Sqlite;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * Part 1: the store's claim + complete of new keys, on PostgreSQL and SQLite, at each thread count;
 * the same two statements run by pgbench; and replays (claim of a completed key). The Redis backends,
 * when asked for, run the same claim + complete in {@link RedisStoreBench}.
 */
final class StoreBench {
    static final Scope SCOPE = Scope.of("bench-user", "POST /orders");
    static final Fingerprint FINGERPRINT = Fingerprint.builder().part("body", "{\"item\":\"book\",\"amount\":100}").build();
    static final StoredResponse RESPONSE = StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")),
            "{\"id\":12345,\"item\":\"book\",\"amount\":100}".getBytes(StandardCharsets.UTF_8));
    /**
     * {@link #RESPONSE}'s headers as the JDBC store writes them to its {@code headers} column (one
     * {@code name: value} line each), for the lines that bind the store's statements themselves;
     * {@code HarnessSmokeTest} checks it against a row the store wrote.
     */
    static final String STORED_HEADERS = "Content-Type: application/json\n";
    static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration RETENTION = Duration.ofHours(24);
    /** Completed keys the replay runs draw from. */
    static final int REPLAY_KEYS = 2_000;
    /** The cache holds every replayed key. */
    static final int CACHE_ENTRIES = 10_000;

    private final Options options;
    private final Postgres pg;
    private final Path work;

    StoreBench(Options options, Postgres pg, Path work) {
        this.options = options;
        this.pg = pg;
        this.work = work;
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        int maxThreads = options.threads.stream().mapToInt(Integer::intValue).max().orElse(1);
        for (String backend : options.backends) {
            boolean postgres = backend.equals("postgresql");
            if (postgres && pg == null || !postgres && !backend.equals("sqlite")) {
                continue;
            }
            String label = postgres ? "PostgreSQL" : "SQLite";
            Path sqliteDir = postgres ? null : Files.createTempDirectory(work, "sqlite-");
            try (HikariDataSource ds = postgres ? pg.pool(maxThreads) : sqlitePool(sqliteDir.resolve("store.db"), maxThreads)) {
                JdbcIdempotencyStore store = coalescing(JdbcIdempotencyStore.builder(ds)).build();
                store.migrate();
                List<Measured> firsts = new ArrayList<>();
                for (int threads : options.threads) {
                    truncate(ds);
                    Bench.progress("store " + label + " claim+complete, " + threads + " threads");
                    Measured first = firstExecutions(store, threads);
                    firsts.add(first);
                    Row idemRow = new Row("store", "claim+complete (idem)", label, threads, first, "ops/s", null, Double.NaN, null);
                    Measured bench = null;
                    if (postgres && options.pgbench && PgBench.available()) {
                        truncate(ds);
                        Bench.progress("store PostgreSQL claim+complete, pgbench, " + threads + " clients");
                        bench = pgbenchSameSql(threads);
                    }
                    rows.add(bench == null ? idemRow : idemRow.compare("pgbench", bench));
                    if (bench != null) {
                        rows.add(new Row("store", "claim+complete (pgbench, same SQL)", label, threads, bench, "tx/s", null, Double.NaN, null));
                    }
                }
                truncate(ds);
                List<String> keys = populate(store, REPLAY_KEYS);
                for (int i = 0; i < options.threads.size(); i++) {
                    int threads = options.threads.get(i);
                    Bench.progress("store " + label + " replay, " + threads + " threads");
                    Measured replay = replays(store, keys, threads);
                    rows.add(new Row("store", "replay (claim of a completed key)", label, threads, replay, "ops/s", null, Double.NaN, null)
                            .compare("claim+complete", firsts.get(i)));
                }
                if (options.cache) {
                    JdbcIdempotencyStore cached = coalescing(JdbcIdempotencyStore.builder(ds).responseCache(CACHE_ENTRIES)).build();
                    for (int i = 0; i < options.threads.size(); i++) {
                        int threads = options.threads.get(i);
                        Bench.progress("store " + label + " replay with responseCache(" + CACHE_ENTRIES + "), " + threads + " threads");
                        Measured replay = replays(cached, keys, threads);
                        rows.add(new Row("store", "replay, responseCache(" + CACHE_ENTRIES + ")", label, threads, replay, "ops/s", null,
                                Double.NaN, "after the first replay of each key").compare("claim+complete", firsts.get(i)));
                    }
                }
            } finally {
                if (sqliteDir != null) {
                    Bench.deleteTree(sqliteDir);
                }
            }
        }
        rows.addAll(new OwnServerBench(options, work).run());
        if (RedisStoreBench.wanted(options)) {
            rows.addAll(new RedisStoreBench(options, work).run());
        }
        if (NatsKvStoreBench.wanted(options)) {
            rows.addAll(new NatsKvStoreBench(options).run());
        }
        return rows;
    }

    /** The builder with coalesced commits as --coalesce / --no-coalesce force them, else the dialect's default. */
    private JdbcIdempotencyStore.Builder coalescing(JdbcIdempotencyStore.Builder builder) {
        return options.coalesce == null ? builder : builder.coalesceCommits(options.coalesce);
    }

    static HikariDataSource sqlitePool(Path file, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Sqlite.url(file));
        config.setMaximumPoolSize(size);
        config.setPoolName("bench-sqlite");
        return new HikariDataSource(config);
    }

    private static void truncate(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM idem_record");
        }
    }

    Measured firstExecutions(IdempotencyStore store, int threads) throws InterruptedException {
        return firstExecutions(store, threads, options.warmup, options.duration, new ArrayList<>());
    }

    /** One round of claim + complete of new keys, its latencies added to {@code latencies}. */
    static Measured firstExecutions(IdempotencyStore store, int threads, Duration warmup, Duration window, List<Latencies> latencies)
            throws InterruptedException {
        return LoadLoop.run(threads, warmup, window, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> claimAndComplete(store, newKey(random));
        }, latencies);
    }

    static String newKey(SplittableRandom random) {
        return Long.toString(random.nextLong(1, Long.MAX_VALUE));
    }

    static void claimAndComplete(IdempotencyStore store, String key) {
        RecordKey id = new RecordKey(SCOPE, IdempotencyKey.of(key));
        ClaimOutcome outcome = store.claim(new ClaimRequest(id, FINGERPRINT, LEASE, RETENTION));
        if (!(outcome instanceof ClaimOutcome.Acquired acquired)) {
            throw new AssertionError("a new key did not acquire: " + outcome);
        }
        store.complete(id, acquired.token(), RESPONSE, RETENTION);
    }

    /** Completes {@code count} keys on 8 threads and returns them. */
    static List<String> populate(IdempotencyStore store, int count) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(42);
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(newKey(random));
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String key : keys) {
                done.add(pool.submit(() -> claimAndComplete(store, key)));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("populating replay keys failed", e.getCause());
        } finally {
            pool.shutdown();
        }
        return keys;
    }

    Measured replays(IdempotencyStore store, List<String> keys, int threads) throws InterruptedException {
        return replays(store, threads, options.warmup, options.duration, random -> keys.get(random.nextInt(keys.size())));
    }

    /** Picks the completed key a replay claims; called on the replaying thread with that thread's random. */
    @FunctionalInterface
    interface KeyPicker {
        String pick(SplittableRandom random);
    }

    /** Claims of completed keys, each chosen by {@code keys}; anything but a replay is an error. */
    static Measured replays(IdempotencyStore store, int threads, Duration warmup, Duration window, KeyPicker keys)
            throws InterruptedException {
        return LoadLoop.run(threads, warmup, window, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                RecordKey id = new RecordKey(SCOPE, IdempotencyKey.of(keys.pick(random)));
                ClaimOutcome outcome = store.claim(new ClaimRequest(id, FINGERPRINT, LEASE, RETENTION));
                if (!(outcome instanceof ClaimOutcome.Replay)) {
                    throw new AssertionError("a completed key did not replay: " + outcome);
                }
            };
        });
    }

    Measured pgbenchSameSql(int clients) throws Exception {
        return PgBench.run(pg, pgbenchScript(), clients, options.warmup, options.duration, pgbenchVariables(), work);
    }

    /**
     * The store's own claim and complete statements, as loaded from idem-jdbc's resources, with each
     * {@code ?} bound to a pgbench variable in the order the store binds them; the claim's token is
     * captured with {@code \gset c_} (a prefix, so the claim's other columns do not overwrite the
     * variables) and passed to the complete, as the store does. Keys are random 63-bit numbers like
     * the Java side's.
     */
    static String pgbenchScript() {
        SqlStatements sql = SqlStatements.load(Dialect.POSTGRESQL, "idem_record", List.of());
        return "\\set key random(1, 9223372036854775806)\n"
                + PgBench.bind(sql.get("claim"), "scope", "key", "fingerprint", "lease_ms", "retention_ms") + " \\gset c_\n"
                + PgBench.bind(sql.get("complete"), "status", "headers", "body", "retention_ms", "scope", "key", "c_token") + ";\n";
    }

    static Map<String, String> pgbenchVariables() {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("scope", SCOPE.value());
        v.put("fingerprint", FINGERPRINT.value());
        v.put("lease_ms", Long.toString(LEASE.toMillis()));
        v.put("retention_ms", Long.toString(RETENTION.toMillis()));
        v.put("status", Integer.toString(RESPONSE.status()));
        v.put("headers", STORED_HEADERS);
        v.put("body", "\\x" + HexFormat.of().formatHex(RESPONSE.body()));
        return v;
    }
}
