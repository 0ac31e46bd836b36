package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Part 2: a real HTTP endpoint that inserts one row, with and without idem. The server is a Spring
 * Boot application with idem's starter ({@link dev.idem.bench.app.BenchApp}) in its own JVM
 * ({@code -Xmx256m}); this process drives it over keep-alive connections. With idem: the starter's
 * filter ({@code @Idempotent}: claim, handler, complete — three commits), the filter in transactional
 * mode ({@code @Idempotent(transactional = true)}: one commit), and idem's transactional mode called
 * in the handler (one commit).
 */
final class EndpointBench {
    static final int REPLAY_KEYS = 2_000;

    private final Options options;
    private final Postgres pg;
    private final Path work;
    private final int replayKeys;

    EndpointBench(Options options, Postgres pg, Path work) {
        this(options, pg, work, REPLAY_KEYS);
    }

    /** With {@code replayKeys} keys completed before the replay lines (fewer for the harness' smoke test). */
    EndpointBench(Options options, Postgres pg, Path work, int replayKeys) {
        this.options = options;
        this.pg = pg;
        this.work = work;
        this.replayKeys = replayKeys;
    }

    List<Row> run() throws Exception {
        pg.execute("CREATE TABLE IF NOT EXISTS bench_order (id bigserial PRIMARY KEY, item text NOT NULL, amount integer NOT NULL)",
                "CREATE TABLE IF NOT EXISTS bench_floor (idem_key text PRIMARY KEY, status integer, body bytea)");
        List<Row> rows = new ArrayList<>();
        Process server = null;
        Path log = work.resolve("endpoint-server.log");
        try {
            Bench.progress("endpoint: starting the Spring Boot server (its log: " + log + ")");
            Path portFile = work.resolve("endpoint.port");
            Files.deleteIfExists(portFile);
            server = startServer(portFile, log, false);
            int port = awaitPort(server, portFile, log);
            int c = options.connections;
            String conn = c + " connections";
            warmUp(port);

            Bench.progress("endpoint without idem, " + conn);
            Measured plain = drive(port, "/plain/orders", null, false);
            Bench.progress("endpoint with idem, first executions, " + conn);
            Measured first = drive(port, "/idem/orders", null, false);
            List<String> keys = populate(port, "/idem/orders");
            Bench.progress("endpoint with idem, replays, " + conn);
            Measured replay = drive(port, "/idem/orders", keys, true);
            rows.add(new Row("endpoint", "POST, insert 1 row, without idem", "HTTP+PostgreSQL", c, plain, "req/s", null, Double.NaN,
                    "Spring Boot 4, Tomcat, Hikari"));
            rows.add(new Row("endpoint", "same, @Idempotent, first executions", "HTTP+PostgreSQL", c, first, "req/s", null, Double.NaN, null)
                    .compare("without idem", plain));
            rows.add(new Row("endpoint", "same, @Idempotent, replays", "HTTP+PostgreSQL", c, replay, "req/s", null, Double.NaN, null)
                    .compare("first executions", first));
            Bench.progress("endpoint, the default filter's hand-written floor (3 commits), " + conn);
            Measured floor = drive(port, "/floor/orders", null, false);
            rows.add(new Row("endpoint", "same, hand-written floor: key row, order row, response row (3 commits)", "HTTP+PostgreSQL", c, floor,
                    "req/s", null, Double.NaN, "the durable writes idem's rule requires, nothing else").compare("without idem", plain));
            rows.add(new Row("endpoint", "same, @Idempotent, first executions, against its floor", "HTTP+PostgreSQL", c, first, "req/s", null,
                    Double.NaN, "what idem adds beyond those writes").compare("hand-written floor", floor));
            Bench.progress("endpoint without idem, 1 connection");
            Measured plainOne = drive(port, "/plain/orders", null, false, 1);
            Bench.progress("endpoint with idem, first executions, 1 connection");
            Measured firstOne = drive(port, "/idem/orders", null, false, 1);
            Bench.progress("endpoint, the hand-written floor, 1 connection");
            Measured floorOne = drive(port, "/floor/orders", null, false, 1);
            rows.add(new Row("endpoint", "POST, insert 1 row, without idem, 1 connection", "HTTP+PostgreSQL", 1, plainOne, "req/s", null,
                    Double.NaN, "latency-bound: one request at a time"));
            rows.add(new Row("endpoint", "same, @Idempotent, first executions, 1 connection", "HTTP+PostgreSQL", 1, firstOne, "req/s", null,
                    Double.NaN, null).compare("without idem, 1 connection", plainOne));
            rows.add(new Row("endpoint", "same, hand-written floor (3 commits), 1 connection", "HTTP+PostgreSQL", 1, floorOne, "req/s", null,
                    Double.NaN, null).compare("without idem, 1 connection", plainOne));
            rows.add(new Row("endpoint", "same, @Idempotent, first executions, 1 connection, against its floor", "HTTP+PostgreSQL", 1,
                    firstOne, "req/s", null, Double.NaN, null).compare("hand-written floor, 1 connection", floorOne));
            Bench.progress("endpoint with @Idempotent(transactional = true), first executions, " + conn);
            Measured filterTx = drive(port, "/idemtx/orders", null, false);
            Bench.progress("endpoint with @Idempotent(transactional = true), replays, " + conn);
            List<String> filterTxKeys = populate(port, "/idemtx/orders");
            Measured filterTxReplay = drive(port, "/idemtx/orders", filterTxKeys, true);
            rows.add(new Row("endpoint", "same, @Idempotent(transactional = true), first executions", "HTTP+PostgreSQL", c, filterTx,
                    "req/s", null, Double.NaN, "the filter: claim, row and response in 1 transaction").compare("without idem", plain));
            rows.add(new Row("endpoint", "same, @Idempotent(transactional = true), replays", "HTTP+PostgreSQL", c, filterTxReplay,
                    "req/s", null, Double.NaN, null).compare("its first executions", filterTx));
            Bench.progress("endpoint, TransactionalIdem in the handler, first executions, " + conn);
            Measured tx = drive(port, "/tx/orders", null, false);
            Bench.progress("endpoint, TransactionalIdem in the handler, replays, " + conn);
            List<String> txKeys = populate(port, "/tx/orders");
            Measured txReplay = drive(port, "/tx/orders", txKeys, true);
            rows.add(new Row("endpoint", "same, TransactionalIdem in the handler, first executions", "HTTP+PostgreSQL", c, tx, "req/s", null,
                    Double.NaN, "claim, row and response in 1 transaction").compare("without idem", plain));
            rows.add(new Row("endpoint", "same, TransactionalIdem in the handler, replays", "HTTP+PostgreSQL", c, txReplay, "req/s", null,
                    Double.NaN, null).compare("its first executions", tx));
            stop(server);
            server = null;
            if (options.cache) {
                Bench.progress("endpoint: restarting the server with the completed-response cache");
                Files.deleteIfExists(portFile);
                server = startServer(portFile, log, true);
                port = awaitPort(server, portFile, log);
                Bench.progress("endpoint with idem, replays, response cache, " + conn);
                Measured cached = drive(port, "/idem/orders", keys, true);
                rows.add(new Row("endpoint", "same, @Idempotent, replays, responseCache(" + StoreBench.CACHE_ENTRIES + ")", "HTTP+PostgreSQL",
                        c, cached, "req/s", null, Double.NaN, "after the first replay of each key").compare("first executions", first));
            }
        } finally {
            stop(server);
        }
        return rows;
    }

    /**
     * Part webflux: the same work on Spring WebFlux and Reactor Netty ({@link dev.idem.bench.app.WebFluxBenchApp}),
     * without idem and behind idem-webflux's {@code IdempotencyWebFilter} (claim, handler, complete: three
     * commits, the store's calls on {@code boundedElastic}).
     */
    List<Row> runWebFlux() throws Exception {
        pg.execute("CREATE TABLE IF NOT EXISTS bench_order (id bigserial PRIMARY KEY, item text NOT NULL, amount integer NOT NULL)");
        Path log = work.resolve("webflux-server.log");
        Path portFile = work.resolve("webflux.port");
        Files.deleteIfExists(portFile);
        Bench.progress("webflux: starting the WebFlux server (its log: " + log + ")");
        Process server = startJava("dev.idem.bench.app.WebFluxBenchApp",
                List.of("--url=" + pg.url, "--pool=" + poolSize(), "--port-file=" + portFile.toAbsolutePath()), log);
        try {
            int port = awaitPort(server, portFile, log);
            String conn = options.connections + " connections";
            Bench.progress("webflux endpoint without idem, " + conn);
            Measured plain = drive(port, "/plain/orders", null, false);
            Bench.progress("webflux endpoint with IdempotencyWebFilter, first executions, " + conn);
            Measured first = drive(port, "/idem/orders", null, false);
            List<String> keys = populate(port, "/idem/orders");
            Bench.progress("webflux endpoint with IdempotencyWebFilter, replays, " + conn);
            Measured replay = drive(port, "/idem/orders", keys, true);
            int c = options.connections;
            return List.of(
                    new Row("webflux", "POST, insert 1 row, without idem", "HTTP+PostgreSQL", c, plain, "req/s", null, Double.NaN,
                            "Spring WebFlux, Reactor Netty, Hikari; JDBC on boundedElastic"),
                    new Row("webflux", "same, IdempotencyWebFilter, first executions", "HTTP+PostgreSQL", c, first, "req/s", null, Double.NaN,
                            "claim, handler, complete: 3 commits").compare("without idem", plain),
                    new Row("webflux", "same, IdempotencyWebFilter, replays", "HTTP+PostgreSQL", c, replay, "req/s", null, Double.NaN, null)
                            .compare("first executions", first));
        } finally {
            stop(server);
        }
    }

    /** Routes of the Spring MVC server whose first executions are measured. */
    private static final List<String> ROUTES = List.of("/plain/orders", "/idem/orders", "/floor/orders", "/idemtx/orders", "/tx/orders");

    /**
     * Drives every route in turn, twice, for a warm-up each, before anything is measured: on two
     * cores the JIT takes several seconds to compile a route's code, so a route measured early on a
     * fresh server (the default filter used to be the second case) ran partly interpreted against
     * routes measured later, warm (its floor): 0.32-0.36 of the floor cold, 0.72-0.77 warm, in one
     * run on the same server.
     */
    private void warmUp(int port) throws InterruptedException {
        Bench.progress("endpoint: warming every route up (" + ROUTES.size() + " routes, twice, " + options.warmup.toMillis() + " ms each)");
        for (int round = 0; round < 2; round++) {
            for (String route : ROUTES) {
                LoadLoop.run(options.connections, Duration.ZERO, options.warmup, t -> {
                    HttpConnection http = new HttpConnection("127.0.0.1", port);
                    SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                    return () -> {
                        String key = StoreBench.newKey(random);
                        http.post(route, key, body(key));
                    };
                });
            }
        }
    }

    private static void stop(Process server) throws InterruptedException {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private Process startServer(Path portFile, Path log, boolean cache) throws IOException {
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + pg.url,
                "--spring.datasource.hikari.maximum-pool-size=" + poolSize(),
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--bench.port-file=" + portFile.toAbsolutePath(),
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN",
                "--idem.sweeper.interval=10s"));
        if (options.coalesce != null) {
            // The starter's store can only be switched off; the cached store takes either.
            args.add("--bench.coalesce-commits=" + options.coalesce);
            args.add("--idem.coalesce-commits=" + options.coalesce);
        }
        if (cache) {
            args.add("--bench.response-cache=" + StoreBench.CACHE_ENTRIES);
        }
        return startJava("dev.idem.bench.app.BenchApp", args, log);
    }

    private int poolSize() {
        return Math.max(10, options.connections * 2);
    }

    /** {@code mainClass} of this class path in a JVM of its own ({@code -Xmx256m}, serial GC), its output in {@code log}. */
    private static Process startJava(String mainClass, List<String> args, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx256m");
        cmd.add("-XX:+UseSerialGC");
        String extra = System.getenv("IDEM_BENCH_SERVER_OPTS");
        if (extra != null && !extra.isBlank()) {
            cmd.addAll(List.of(extra.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(args);
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // The server must not outlive an interrupted benchmark.
        Runtime.getRuntime().addShutdownHook(new Thread(server::destroyForcibly, "bench-server-stop"));
        return server;
    }

    private static int awaitPort(Process server, Path portFile, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (Files.exists(portFile)) {
                return Integer.parseInt(Files.readString(portFile).trim());
            }
            if (!server.isAlive()) {
                throw new IllegalStateException("the endpoint server exited with " + server.exitValue() + "; see " + log);
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the endpoint server did not listen within 120 s; see " + log);
    }

    static byte[] body(String key) {
        return ("{\"item\":\"k" + key + "\",\"amount\":100}").getBytes(StandardCharsets.US_ASCII);
    }

    private Measured drive(int port, String path, List<String> replayKeys, boolean expectReplay) throws InterruptedException {
        return drive(port, path, replayKeys, expectReplay, options.connections);
    }

    private Measured drive(int port, String path, List<String> replayKeys, boolean expectReplay, int connections) throws InterruptedException {
        return LoadLoop.run(connections, options.warmup, options.duration, t -> {
            HttpConnection http = new HttpConnection("127.0.0.1", port);
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                String key = replayKeys == null ? StoreBench.newKey(random) : replayKeys.get(random.nextInt(replayKeys.size()));
                HttpConnection.Response r = http.post(path, key, body(key));
                if (r.status() != 201 || r.replayed() != expectReplay) {
                    throw new AssertionError("unexpected answer " + r.status() + (r.replayed() ? " (replayed)" : "") + " from " + path);
                }
            };
        });
    }

    private List<String> populate(int port, String path) throws IOException {
        SplittableRandom random = new SplittableRandom(7);
        List<String> keys = new ArrayList<>(replayKeys);
        try (HttpConnection http = new HttpConnection("127.0.0.1", port)) {
            for (int i = 0; i < replayKeys; i++) {
                String key = StoreBench.newKey(random);
                HttpConnection.Response r = http.post(path, key, body(key));
                if (r.status() != 201) {
                    throw new IllegalStateException("populating replay keys: status " + r.status());
                }
                keys.add(key);
            }
        }
        return keys;
    }
}
