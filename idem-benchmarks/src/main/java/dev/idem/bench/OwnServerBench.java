package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Every store against its own server, in the store part: idem's claim + complete of new keys next to
 * the same work sent by the raw client at the same concurrency, so the ratio is what idem adds on top
 * of the server. MariaDB ({@code mariadb}): the store's own two statements, read from idem-jdbc's
 * resources, through the MariaDB driver on a HikariCP pool of the same size, each statement committing
 * by itself as the store's do. Redis ({@code redis-raw}): the store's own claim and complete scripts,
 * as idem-redis ships them, by {@code EVALSHA} on one shared Lettuce connection as the store uses, with
 * keys of the store's layout and the store's arguments (the stored headers read back from a record the
 * store wrote), on a private master (and replica) persisting with {@code appendfsync everysec}.
 */
final class OwnServerBench {
    static final String MARIADB = "mariadb";
    static final String REDIS_RAW = "redis-raw";

    private final Options options;
    private final Path work;

    OwnServerBench(Options options, Path work) {
        this.options = options;
        this.work = work;
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        if (options.backends.contains(MARIADB)) {
            rows.addAll(mariadb());
        }
        if (options.backends.contains(REDIS_RAW)) {
            rows.addAll(redis());
        }
        return rows;
    }

    /** One round of a line: its warm-up and window, its latencies added to {@code latencies}. */
    @FunctionalInterface
    interface Round {
        Measured run(Duration warmup, Duration window, List<Latencies> latencies) throws Exception;
    }

    Measured[] inTurns(Round a, Round b) throws Exception {
        return inTurns(options, a, b);
    }

    /**
     * Two lines measured in turns, A B B A, each round half the window after half the warm-up: on a
     * shared machine a change in background load then falls on both alike, so their ratio holds
     * where the rates do not.
     */
    static Measured[] inTurns(Options options, Round a, Round b) throws Exception {
        Duration warmup = options.warmup.dividedBy(2);
        Duration window = options.duration.dividedBy(2);
        List<Measured> aRounds = new ArrayList<>();
        List<Measured> bRounds = new ArrayList<>();
        List<Latencies> aLatencies = new ArrayList<>();
        List<Latencies> bLatencies = new ArrayList<>();
        aRounds.add(a.run(warmup, window, aLatencies));
        bRounds.add(b.run(warmup, window, bLatencies));
        bRounds.add(b.run(warmup, window, bLatencies));
        aRounds.add(a.run(warmup, window, aLatencies));
        return new Measured[] {merged(aRounds, aLatencies), merged(bRounds, bLatencies)};
    }

    /** Rounds as one line, keeping their units per operation (a batch counts its messages). */
    private static Measured merged(List<Measured> rounds, List<Latencies> latencies) {
        return LoadLoop.merge(rounds, latencies).withUnits(rounds.get(0).unitsPerOp());
    }

    // ---- MariaDB ------------------------------------------------------------------------------

    private List<Row> mariadb() throws Exception {
        String database = "idem_bench_" + ProcessHandle.current().pid();
        String admin = options.mariadbUrl;
        try (Connection c = DriverManager.getConnection(admin); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + database);
            st.execute("CREATE DATABASE " + database);
        }
        List<Row> rows = new ArrayList<>();
        int maxThreads = options.threads.stream().mapToInt(Integer::intValue).max().orElse(1);
        try (HikariDataSource ds = mariadbPool(withDatabase(admin, database), maxThreads)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).build();
            store.migrate();
            String version = serverVersion(ds);
            SqlStatements sql = SqlStatements.load(Dialect.MARIADB, "idem_record", List.of());
            for (int threads : options.threads) {
                Bench.progress("store MariaDB claim+complete, idem and the raw driver in turns, " + threads + " threads");
                Measured[] pair = inTurns(
                        (warmup, window, latencies) -> {
                            clear(ds);
                            return StoreBench.firstExecutions(store, threads, warmup, window, latencies);
                        },
                        (warmup, window, latencies) -> {
                            clear(ds);
                            return rawSql(ds, sql, threads, warmup, window, latencies);
                        });
                Measured idem = pair[0];
                Measured raw = pair[1];
                rows.add(new Row("store", "claim+complete (idem)", "MariaDB", threads, idem, "ops/s", null, Double.NaN, null)
                        .compare("raw driver", raw));
                rows.add(new Row("store", "claim+complete (same SQL, raw driver)", "MariaDB", threads, raw, "ops/s", null, Double.NaN,
                        threads == options.threads.get(0) ? "MariaDB " + version + ", mariadb-java-client, auto-commit" : null));
            }
        } finally {
            try (Connection c = DriverManager.getConnection(admin); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database);
            }
        }
        return rows;
    }

    /** The store's claim and complete statements, bound as the store binds them, each committing by itself. */
    private static Measured rawSql(HikariDataSource ds, SqlStatements sql, int threads, Duration warmup, Duration window,
                                   List<Latencies> latencies) throws InterruptedException {
        String claim = sql.get("claim");
        String complete = sql.get("complete");
        String headers = StoreBench.STORED_HEADERS;
        return LoadLoop.run(threads, warmup, window, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                String key = StoreBench.newKey(random);
                long token;
                try (Connection c = ds.getConnection()) {
                    try (PreparedStatement ps = c.prepareStatement(claim)) {
                        ps.setString(1, StoreBench.SCOPE.value());
                        ps.setString(2, key);
                        ps.setString(3, StoreBench.FINGERPRINT.value());
                        ps.setLong(4, StoreBench.LEASE.toMillis());
                        ps.setLong(5, StoreBench.RETENTION.toMillis());
                        try (ResultSet rs = ps.executeQuery()) {
                            if (!rs.next()) {
                                throw new AssertionError("a new key was not inserted");
                            }
                            token = rs.getLong(1);
                        }
                    }
                }
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(complete)) {
                    ps.setObject(1, StoreBench.RESPONSE.status());
                    ps.setObject(2, headers);
                    ps.setObject(3, StoreBench.RESPONSE.body());
                    ps.setObject(4, StoreBench.RETENTION.toMillis());
                    ps.setString(5, StoreBench.SCOPE.value());
                    ps.setString(6, key);
                    ps.setLong(7, token);
                    if (ps.executeUpdate() != 1) {
                        throw new AssertionError("complete matched no row");
                    }
                }
            };
        }, latencies);
    }

    static HikariDataSource mariadbPool(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setPoolName("bench-mariadb");
        return new HikariDataSource(config);
    }

    /** {@code jdbc:mariadb://host:port/db?params} with the database replaced. */
    static String withDatabase(String url, String database) {
        int hosts = url.indexOf("//") + 2;
        int slash = url.indexOf('/', hosts);
        int query = url.indexOf('?', hosts);
        String base = url.substring(0, slash < 0 ? (query < 0 ? url.length() : query) : slash);
        return base + "/" + database + (query < 0 ? "" : url.substring(query));
    }

    private static String serverVersion(HikariDataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT VERSION()")) {
            rs.next();
            String v = rs.getString(1);
            int dash = v.indexOf('-');
            return dash < 0 ? v : v.substring(0, dash);
        }
    }

    private static void clear(HikariDataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM idem_record");
        }
    }

    // ---- Redis --------------------------------------------------------------------------------

    private List<Row> redis() throws Exception {
        var server = StandaloneRedis.binary("redis-server");
        if (server.isEmpty()) {
            Bench.progress("redis-server not found: the Redis lines against the raw client are left out");
            return List.of();
        }
        // Absolute: redis-server changes into its --dir before it opens its log file.
        Bench.progress("redis-raw: starting a master and its replica");
        List<Row> rows = new ArrayList<>();
        RedisClient client = null;
        try (StandaloneRedis single = StandaloneRedis.start(server.get(), work.toAbsolutePath());
             RedisIdempotencyStore store = RedisIdempotencyStore.builder(single.uri()).build()) {
            client = RedisClient.create(single.uri());
            try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
                StoreBench.claimAndComplete(store, "raw-headers");
                RawScripts raw = new RawScripts(connection.sync(), RawScripts.storedHeaders(connection.sync()));
                RedisClient admin = client;
                for (int threads : options.threads) {
                    Bench.progress("store Redis claim+complete, idem and raw EVALSHA in turns, " + threads + " threads");
                    Measured[] pair = inTurns(
                            (warmup, window, latencies) -> {
                                RedisStoreBench.flushAll(admin, single.ports());
                                return StoreBench.firstExecutions(store, threads, warmup, window, latencies);
                            },
                            (warmup, window, latencies) -> {
                                RedisStoreBench.flushAll(admin, single.ports());
                                raw.load();
                                return LoadLoop.run(threads, warmup, window, t -> {
                                    SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                                    return () -> raw.claimAndComplete(StoreBench.newKey(random));
                                }, latencies);
                            });
                    Measured idem = pair[0];
                    Measured rawRun = pair[1];
                    rows.add(new Row("store", "claim+complete (idem), no WAIT", "Redis, 1 master", threads, idem, "ops/s", null,
                            Double.NaN, null).compare("raw EVALSHA", rawRun));
                    rows.add(new Row("store", "claim+complete (same scripts, raw EVALSHA)", "Redis, 1 master", threads, rawRun, "ops/s",
                            null, Double.NaN, threads == options.threads.get(0)
                                    ? "redis-server " + single.version() + ", AOF everysec; Lettuce, 1 shared connection" : null));
                }
            }
        } finally {
            if (client != null) {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
        return rows;
    }

    /**
     * The store's claim and complete scripts by {@code EVALSHA}: the texts idem-redis ships, each its
     * shared {@code common.lua} followed by the operation's file (as the store sends them), with keys of
     * the store's layout ({@code idem:{<shard>}r:<base64url SHA-256>}, the shard's expiry and lease indexes) and
     * the store's arguments.
     */
    static final class RawScripts {
        private static final byte[] CLAIM = script("claim");
        private static final byte[] COMPLETE = script("complete");
        private final RedisCommands<byte[], byte[]> redis;
        private final byte[] fingerprint = ascii(StoreBench.FINGERPRINT.value());
        private final byte[] lease = number(StoreBench.LEASE.toMillis());
        private final byte[] retention = number(StoreBench.RETENTION.toMillis());
        private final byte[] grace = number(RedisIdempotencyStore.EXPIRY_GRACE.toMillis());
        private final byte[] status = number(StoreBench.RESPONSE.status());
        private final byte[] headers;
        private final byte[] body = StoreBench.RESPONSE.body();
        private String claimSha;
        private String completeSha;

        /** @param headers {@link StoreBench#RESPONSE}'s headers as the store stores them ({@link #storedHeaders}) */
        RawScripts(RedisCommands<byte[], byte[]> redis, byte[] headers) {
            this.redis = redis;
            this.headers = headers.clone();
        }

        /** After a FLUSHALL: SCRIPT LOAD both (FLUSHALL keeps scripts, but a restart would not). */
        void load() {
            claimSha = redis.scriptLoad(CLAIM);
            completeSha = redis.scriptLoad(COMPLETE);
        }

        void claimAndComplete(String key) {
            byte[][] keys = keys(key);
            List<Object> claimed = redis.evalsha(claimSha, ScriptOutputType.MULTI, keys, fingerprint, lease, retention, grace);
            if (((Long) claimed.get(0)) != 1L) {
                throw new AssertionError("a new key did not acquire: " + claimed.get(0));
            }
            byte[] token = number((Long) claimed.get(1));
            Long done = redis.evalsha(completeSha, ScriptOutputType.INTEGER, keys, token, status, headers, body, retention, grace);
            if (done != 1L) {
                throw new AssertionError("complete did not apply");
            }
        }

        /**
         * The headers field ({@code h}) of the one completed record in a database where the store has
         * completed exactly one key with {@link StoreBench#RESPONSE}: the bytes the store sends.
         */
        static byte[] storedHeaders(RedisCommands<byte[], byte[]> redis) {
            KeyScanCursor<byte[]> cursor = redis.scan(ScanArgs.Builder.matches("idem:*r:*").limit(1000));
            while (cursor.getKeys().isEmpty() && !cursor.isFinished()) {
                cursor = redis.scan(cursor, ScanArgs.Builder.matches("idem:*r:*").limit(1000));
            }
            if (cursor.getKeys().size() != 1) {
                throw new IllegalStateException("expected the one record the store wrote, found " + cursor.getKeys().size());
            }
            byte[] headers = redis.hget(cursor.getKeys().get(0), ascii("h"));
            if (headers == null) {
                throw new IllegalStateException("the store's record has no headers field");
            }
            return headers;
        }

        /** A record key and its shard's index, shaped as the store's (the shard is the digest's first byte). */
        static byte[][] keys(String key) {
            byte[] digest = sha256(key.getBytes(StandardCharsets.UTF_8));
            String shard = String.format("{%02x}", digest[0] & 0xFF);
            return new byte[][] {ascii("idem:" + shard + "r:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest)),
                    ascii("idem:" + shard + "expiry"), ascii("idem:" + shard + "leases")};
        }

        private static byte[] script(String operation) {
            return (resource("common") + "\n" + resource(operation)).getBytes(StandardCharsets.UTF_8);
        }

        private static String resource(String name) {
            String path = "/dev/idem/redis/" + name + ".lua";
            try (InputStream in = RedisIdempotencyStore.class.getResourceAsStream(path)) {
                if (in == null) {
                    throw new IllegalStateException(path + " is not in idem-redis' jar");
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static byte[] sha256(byte[] bytes) {
            try {
                return MessageDigest.getInstance("SHA-256").digest(bytes);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required of every JDK", e);
            }
        }

        private static byte[] number(long n) {
            return ascii(Long.toString(n));
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
