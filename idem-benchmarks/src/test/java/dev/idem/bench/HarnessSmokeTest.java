package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.testing.NatsCluster;
import dev.idem.testing.RealServices;
import dev.idem.testing.RedisCluster;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the harness works, in a few seconds: the load loop, the store cases on SQLite, the Redis lines
 * (one master and a three-master cluster, each started here), the pgbench script (and pgbench itself,
 * where PostgreSQL and pgbench are here), the HTTP driver, the table.
 * Figures come from {@code ./idem bench}, never from here.
 */
class HarnessSmokeTest {
    @TempDir
    Path dir;

    private Options shortOptions() {
        Options o = Options.parse(new String[] {"--duration", "300ms", "--warmup", "100ms", "--threads", "2"});
        assertThat(o.duration).isEqualTo(Duration.ofMillis(300));
        return o;
    }

    @Test
    void storeCasesRunOnSqlite() throws Exception {
        Options options = shortOptions();
        try (HikariDataSource ds = StoreBench.sqlitePool(dir.resolve("smoke.db"), 2)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).build();
            store.migrate();
            StoreBench bench = new StoreBench(options, null, dir);
            Measured first = bench.firstExecutions(store, 2);
            assertThat(first.ops()).isPositive();
            assertThat(first.errors()).isZero();
            List<String> keys = StoreBench.populate(store, 20);
            Measured replay = bench.replays(store, keys, 2);
            assertThat(replay.ops()).isPositive();
            assertThat(replay.errors()).isZero();
            assertThat(replay.p99Millis()).isGreaterThanOrEqualTo(replay.p50Millis());
        }
    }

    @Test
    void rawSqlLinesBindTheHeadersTextTheStoreWrites() throws Exception {
        try (HikariDataSource ds = StoreBench.sqlitePool(dir.resolve("headers.db"), 1)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).build();
            store.migrate();
            StoreBench.populate(store, 1);
            try (java.sql.Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement();
                 java.sql.ResultSet rs = st.executeQuery("SELECT headers FROM idem_record")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(StoreBench.STORED_HEADERS);
            }
        }
    }

    @Test
    void natsKvLinesRunOnOneNodeAndOnThreeReplicasAgainstTheRawClient() throws Exception {
        RealServices.natsUrl(); // skips, or fails when required, without the machine's NATS server
        if (StandaloneRedis.binary("nats-server").isEmpty() && !Files.isExecutable(Path.of("/usr/sbin/nats-server"))) {
            RealServices.unavailable(NatsCluster.SERVICE, "nats-server is needed to start a three-node cluster");
        }
        Options options = Options.parse(new String[] {"--duration", "300ms", "--warmup", "100ms", "--threads", "2",
                "--backends", "nats-kv", "--nats-url", RealServices.natsUrl()});
        List<Row> rows = new NatsKvStoreBench(options).run();
        assertThat(rows).extracting(Row::backend, Row::name).containsExactly(
                tuple("NATS KV, 1 node", "create+update (raw KV client)"),
                tuple("NATS KV, 1 node", "claim+complete (idem)"),
                tuple("NATS KV, 3 replicas", "create+update (raw KV client)"),
                tuple("NATS KV, 3 replicas", "claim+complete (idem)"));
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.threads()).isEqualTo(2);
            assertThat(row.measured().rate()).isPositive();
            assertThat(row.measured().errors()).isZero();
        });
        // idem's lines are compared with the raw client's of the same set-up, whose values are sized as idem's entries.
        assertThat(List.of(rows.get(1), rows.get(3))).allSatisfy(row -> assertThat(row.ratio()).isPositive().isFinite());
        assertThat(rows.get(0).note()).matches("values \\d+ B then \\d+ B, as idem's entries");
    }

    @Test
    void redisLinesRunOnOneMasterAndOnAThreeMasterClusterWithAndWithoutWait() throws Exception {
        if (StandaloneRedis.binary("redis-server").isEmpty() || StandaloneRedis.binary("redis-cli").isEmpty()) {
            RealServices.unavailable(RedisCluster.SERVICE, "redis-server and redis-cli are needed to start one master and a cluster");
        }
        Options options = Options.parse(new String[] {"--duration", "300ms", "--warmup", "100ms", "--threads", "2",
                "--backends", "redis,redis-cluster"});
        List<Row> rows = new RedisStoreBench(options, dir).run();
        assertThat(rows).extracting(Row::backend, Row::name).containsExactly(
                tuple("Redis, 1 master", "claim+complete (idem), no WAIT"),
                tuple("Redis, 1 master", "claim+complete (idem), WAIT 1 replica"),
                tuple("Redis Cluster, 3 masters", "claim+complete (idem), no WAIT"),
                tuple("Redis Cluster, 3 masters", "claim+complete (idem), WAIT 1 replica"));
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.threads()).isEqualTo(2);
            assertThat(row.measured().rate()).isPositive();
            assertThat(row.measured().errors()).isZero();
            assertThat(row.note()).contains("cpu: servers");
        });
        // Without WAIT, a line also weighs a record on its masters.
        assertThat(rows.get(0).note()).contains("B/record");
        assertThat(rows.get(2).note()).contains("B/record");
        // The cluster lines' ratios are to one master, measured in the same run.
        assertThat(rows.subList(1, 4)).allSatisfy(row -> assertThat(row.ratio()).isPositive().isFinite());
        assertThat(rows.get(2).ratioTo()).isEqualTo("1 master, no WAIT");
        assertThat(rows.get(3).ratioTo()).isEqualTo("1 master, WAIT 1");
    }

    @Test
    void mariadbAndRedisStoresRunAgainstTheirRawClients() throws Exception {
        if (StandaloneRedis.binary("redis-server").isEmpty()) {
            RealServices.unavailable(RedisCluster.SERVICE, "redis-server is needed to start a master for the redis-raw lines");
        }
        Options options = Options.parse(new String[] {"--duration", "400ms", "--warmup", "200ms", "--threads", "2",
                "--backends", "mariadb,redis-raw", "--mariadb-url", RealServices.mariadbUrl()});
        List<Row> rows = new OwnServerBench(options, dir).run();
        assertThat(rows).extracting(Row::backend, Row::name).containsExactly(
                tuple("MariaDB", "claim+complete (idem)"),
                tuple("MariaDB", "claim+complete (same SQL, raw driver)"),
                tuple("Redis, 1 master", "claim+complete (idem), no WAIT"),
                tuple("Redis, 1 master", "claim+complete (same scripts, raw EVALSHA)"));
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.measured().ops()).isPositive();
            assertThat(row.measured().errors()).isZero();
        });
        assertThat(rows.get(0).ratioTo()).isEqualTo("raw driver");
        assertThat(rows.get(2).ratioTo()).isEqualTo("raw EVALSHA");
        assertThat(List.of(rows.get(0), rows.get(2))).allSatisfy(row -> assertThat(row.ratio()).isPositive().isFinite());
    }

    @Test
    void inboxAndPeerLinesRunOnPostgres() throws Exception {
        // Without pgbench here (its runs last whole seconds); the pgbench test below runs it, the store test the rounds in turns.
        Options options = Options.parse(new String[] {"--duration", "400ms", "--warmup", "200ms", "--parts", "inbox,peers", "--no-pgbench"});
        try (Postgres pg = new Postgres(RealServices.postgresUrl())) {
            List<Row> inbox = new InboxBench(options, pg, dir).run();
            // Batches of 10: the peers' batches of 100 (200 statements for Camel) may outlast a short window on a busy machine.
            // and the frameworks' first calls are slow: a longer warm-up and window too.
            Options longer = Options.parse(new String[] {"--duration", "1500ms", "--warmup", "1s"});
            List<Row> peers = new PeerInboxBench(longer, pg, 10).run();
            assertThat(inbox).extracting(Row::name).contains("batched 100, processBatchAtOnce (1 array-bound statement)",
                    "batched 500, processBatchAtOnce (1 array-bound statement)");
            assertThat(peers).extracting(Row::name).containsExactly(
                    "claim per message: idem Inbox.process",
                    "claim per message: Spring Integration JdbcMetadataStore.putIfAbsent",
                    "claim per message: Camel JdbcMessageIdRepository.add",
                    "batched 10 (1 tx): idem processBatchAtOnce",
                    "batched 10 (1 tx): Spring Integration putIfAbsent each",
                    "batched 10 (1 tx): Camel add each",
                    "one-row handler per message (1 tx): idem Inbox.process",
                    "one-row handler per message (1 tx): Spring Integration putIfAbsent + row",
                    "one-row handler per message (1 tx): Camel add + row");
            // The lines this harness added; a batch of processBatch may take longer than this short window on a busy machine.
            assertThat(inbox).filteredOn(row -> row.name().contains("array-bound"))
                    .hasSize(2).allSatisfy(row -> assertThat(row.measured().ops()).isPositive());
            assertThat(peers).allSatisfy(row -> {
                assertThat(row.measured().ops()).isPositive();
                assertThat(row.measured().errors()).isZero();
            });
            assertThat(peers.subList(1, 6)).allSatisfy(row -> assertThat(row.ratio()).isPositive().isFinite());
            assertThat(peers.subList(7, 9)).allSatisfy(row -> assertThat(row.ratio()).isPositive().isFinite());
        }
    }

    @Test
    void pgbenchRunsTheStoresOwnStatements() throws Exception {
        SqlStatements sql = SqlStatements.load(Dialect.POSTGRESQL, "idem_record", List.of());
        String script = StoreBench.pgbenchScript();
        assertThat(script).contains(PgBench.bind(sql.get("claim"), "scope", "key", "fingerprint", "lease_ms", "retention_ms"))
                .contains(PgBench.bind(sql.get("complete"), "status", "headers", "body", "retention_ms", "scope", "key", "c_token"))
                .doesNotContain("?");
        if (!PgBench.available()) {
            return;
        }
        String url = RealServices.postgresUrl();
        try (Postgres pg = new Postgres(url)) {
            try (HikariDataSource ds = pg.pool(1)) {
                JdbcIdempotencyStore.builder(ds).build().migrate();
            }
            Measured m = PgBench.run(pg, script, 1, Duration.ofSeconds(1), Duration.ofSeconds(1), StoreBench.pgbenchVariables(), dir);
            assertThat(m.ops()).isPositive();
            Measured inbox = PgBench.run(pg, "SELECT 1;\n", 1, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(), dir);
            assertThat(inbox.ops()).isPositive();
        }
    }

    @Test
    void inboxPgbenchScriptWritesTheSameScatteredIdsToBothTables() throws Exception {
        // The inbox lines are compared with this script: its rows must be the inbox's, ids spread over
        // the key space like the Java side's random ids, not side by side (base-1 … base-n), which
        // PostgreSQL inserts for a third less CPU.
        String script = InboxBench.pgbenchScript(500);
        assertThat(script).startsWith("\\set base random(").contains("BEGIN;").contains("COMMIT;");
        try (Postgres pg = new Postgres(RealServices.postgresUrl())) {
            pg.execute("CREATE TABLE bench_event (consumer text NOT NULL, message_id text NOT NULL, amount integer NOT NULL,"
                    + " PRIMARY KEY (consumer, message_id))");
            try (HikariDataSource ds = pg.pool(1)) {
                dev.idem.inbox.Inbox.builder(ds).build().migrate();
                try (java.sql.Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement()) {
                    for (String line : script.split("\n")) {
                        if (!line.startsWith("\\")) {
                            st.execute(line.replace(":base", "4611686018427387903"));
                        }
                    }
                    java.sql.ResultSet rs = st.executeQuery("SELECT count(*), count(DISTINCT left(message_id, 2)),"
                            + " bool_and(message_id ~ '^[0-9]+$'),"
                            + " (SELECT count(*) FROM bench_event e WHERE e.message_id = i.message_id AND e.consumer = i.consumer)"
                            + " FROM idem_inbox i GROUP BY 4");
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).as("claim rows, each with its one event row").isEqualTo(500);
                    assertThat(rs.getInt(4)).isEqualTo(1);
                    assertThat(rs.getInt(2)).as("distinct two-digit prefixes of 500 ids: scattered, not adjacent").isGreaterThan(50);
                    assertThat(rs.getBoolean(3)).as("decimal text, as the Java side's ids").isTrue();
                    assertThat(rs.next()).as("every claim row has exactly one event row").isFalse();
                }
            }
            if (PgBench.available()) {
                // pgbench binds :base as a parameter in prepared mode, where PostgreSQL infers its type.
                for (int n : new int[] {1, 500}) {
                    Measured m = PgBench.run(pg, InboxBench.pgbenchScript(n), 1, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(), dir);
                    assertThat(m.ops()).as("pgbench ran the inbox script of %d", n).isPositive();
                }
            }
        }
    }

    @Test
    void histogramPercentilesAreWithinTwoPercent() {
        long[] nanos = new long[10_000];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = (i + 1) * 1_000L;  // 1 us .. 10 ms
        }
        double[] p = Latencies.percentilesOf(nanos);
        assertThat(p[0]).isCloseTo(5.0, org.assertj.core.data.Percentage.withPercentage(2));
        assertThat(p[1]).isCloseTo(9.9, org.assertj.core.data.Percentage.withPercentage(2));
        for (long v : new long[] {0, 1, 63, 64, 65, 1000, 123_456_789L, Long.MAX_VALUE / 2}) {
            assertThat(Latencies.value(Latencies.index(v))).isCloseTo((double) v, org.assertj.core.data.Offset.offset(Math.max(1.0, v * 0.016)));
        }
    }

    @Test
    void bindReplacesParametersInOrderOutsideQuotes() {
        assertThat(PgBench.bind("SELECT '?', ? + ?", "a", "b")).isEqualTo("SELECT '?', :a + :b");
    }

    @Test
    void httpDriverReadsLengthChunkedAndReplayHeader() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/fixed", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = "{\"id\":1}".getBytes(StandardCharsets.US_ASCII);
            exchange.getResponseHeaders().add("Idempotent-Replayed", "true");
            exchange.sendResponseHeaders(201, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.createContext("/chunked", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(201, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("hello ".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                out.write("world".getBytes(StandardCharsets.US_ASCII));
            }
        });
        server.start();
        try (HttpConnection http = new HttpConnection("127.0.0.1", server.getAddress().getPort())) {
            for (int i = 0; i < 3; i++) {
                HttpConnection.Response fixed = http.post("/fixed", "k" + i, EndpointBench.body("k" + i));
                assertThat(fixed).isEqualTo(new HttpConnection.Response(201, true, 8));
                HttpConnection.Response chunked = http.post("/chunked", null, new byte[0]);
                assertThat(chunked).isEqualTo(new HttpConnection.Response(201, false, 11));
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void tableAndJsonShowEveryRow() {
        Measured a = new Measured(1000, 2.0, 0.5, 2.0, 0, 1);
        Measured b = new Measured(800, 2.0, 0.6, 2.5, 0, 1);
        Row row = new Row("store", "claim+complete (idem)", "PostgreSQL", 8, b, "ops/s", null, Double.NaN, "a \"note\"").compare("pgbench", a);
        assertThat(row.ratio()).isEqualTo(0.8);
        String table = Bench.table(List.of(row));
        assertThat(table).contains("claim+complete (idem)").contains("400").contains("0.80").contains("pgbench");
        assertThat(Bench.json(List.of(row), "h\n", null)).contains("\"ratio\": 0.8000").contains("a \\\"note\\\"");
    }

    @Test
    void webfluxLinesRunTheSameEndpointWithoutAndBehindTheFilter() throws Exception {
        Options options = Options.parse(new String[] {"--duration", "300ms", "--warmup", "100ms", "--parts", "webflux", "--connections", "2"});
        try (Postgres pg = new Postgres(RealServices.postgresUrl())) {
            List<Row> rows = new EndpointBench(options, pg, dir, 20).runWebFlux();

            assertThat(rows).extracting(Row::name).containsExactly("POST, insert 1 row, without idem",
                    "same, IdempotencyWebFilter, first executions", "same, IdempotencyWebFilter, replays");
            assertThat(rows).allSatisfy(row -> {
                assertThat(row.measured().ops()).isPositive();
                assertThat(row.measured().errors()).as("every answer 201, replayed where expected").isZero();
            });
            assertThat(rows.subList(1, 3)).allSatisfy(row -> assertThat(row.ratio()).isPositive().isFinite());
        }
    }

    @Test
    void scaleLinesLoadBothLayoutsAndPurgeTheExpiredHourOfEachOnPostgresAndMariadb() throws Exception {
        Options options = Options.parse(new String[] {"--duration", "300ms", "--warmup", "100ms", "--parts", "scale", "--rows", "24000",
                "--backends", "postgresql,mariadb", "--mariadb-url", RealServices.mariadbUrl()});
        try (Postgres pg = new Postgres(RealServices.postgresUrl())) {
            List<Row> rows = new ScaleBench(options, pg).run();
            List<org.assertj.core.groups.Tuple> expected = new java.util.ArrayList<>();
            for (String product : List.of("PostgreSQL", "MariaDB")) {
                for (String layout : List.of("unpartitioned", "by partition (1 h)")) {
                    int first = expected.size();
                    String backend = product + ", " + layout;
                    expected.add(tuple("claim+complete, empty table", backend));
                    expected.add(tuple("replay of a completed key, empty table", backend));
                    expected.add(tuple(rows.get(first + 2).name(), backend));
                    expected.add(tuple(rows.get(first + 3).name(), backend));
                    expected.add(tuple("purge of the expired hour", backend));
                    expected.add(tuple("claim+complete, before the purge", backend));
                    expected.add(tuple("claim+complete, during the purge", backend));
                    assertThat(rows.get(first).note()).contains("B of WAL").contains("a claim+complete");
                    assertThat(rows.get(first + 2).name()).startsWith("claim+complete, 2");
                    assertThat(rows.get(first + 2).ratio()).isPositive().isFinite();
                    assertThat(rows.get(first + 3).name()).as("replays of loaded keys: each one a replay, or an error")
                            .startsWith("replay of an old key, 2");
                    assertThat(rows.get(first + 3).measured().ops()).isPositive();
                    assertThat(rows.get(first + 4).measured().ops()).as("%s: the expired hour purged", backend).isPositive();
                    assertThat(rows.get(first + 5).measured().ops()).as("%s: claims before the purge under load", backend).isPositive();
                    assertThat(rows.get(first + 6).note()).as("%s: the purge under load purged the reloaded hour", backend)
                            .doesNotContain("the purge: 0 rows");
                }
            }
            assertThat(rows).extracting(Row::name, Row::backend).containsExactlyElementsOf(expected);
            // A 24th of the records was loaded expired: the sweeper's purge deletes exactly those; the drop's count is the planner's estimate.
            assertThat(rows.get(4).measured().ops()).isEqualTo(1000);
            assertThat(rows.get(18).measured().ops()).isEqualTo(1000);
            assertThat(rows.get(6).note()).contains("the purge: 1,000 rows");
            assertThat(rows.get(4).note()).contains("autovacuum");
            // Which table locks the drop's line names is not asserted: they are sampled every 5 ms, and the drop of
            // a partition this small can be over between two samples (a fresh-clone run saw only the claims' own).
            assertThat(rows.get(13).note()).as("the drop under load").contains("the purge: ").doesNotContain("the purge: 0 rows");
            assertThat(rows).allSatisfy(row -> assertThat(row.measured().errors()).isZero());
        }
    }

    @Test
    void inboxScaleLinesLoadBothLayoutsAndPurgeTheExpiredHourOnPostgres() throws Exception {
        Options options = Options.parse(new String[] {"--duration", "300ms", "--warmup", "100ms", "--parts", "scale-inbox", "--rows", "24000"});
        try (Postgres pg = new Postgres(RealServices.postgresUrl())) {
            List<Row> rows = new InboxScaleBench(options, pg).run();
            // The loaded tables also hold the empty case's messages: "new message, 24,5xx rows".
            assertThat(rows).extracting(Row::backend).containsExactly("PostgreSQL inbox, unpartitioned", "PostgreSQL inbox, unpartitioned",
                    "PostgreSQL inbox, unpartitioned", "PostgreSQL inbox, unpartitioned", "PostgreSQL inbox, by partition (1 h)",
                    "PostgreSQL inbox, by partition (1 h)", "PostgreSQL inbox, by partition (1 h)", "PostgreSQL inbox, by partition (1 h)");
            for (int first : new int[] {0, 4}) {
                assertThat(rows.get(first).name()).isEqualTo("new message, empty table");
                assertThat(rows.get(first + 1).name()).startsWith("new message, 2");
                assertThat(rows.get(first + 1).ratio()).isPositive().isFinite();
                assertThat(rows.get(first + 2).name()).startsWith("redelivery of an old message, 2");
                assertThat(rows.get(first + 3).name()).isEqualTo("purge of the expired hour");
            }
            assertThat(rows.get(1).note()).contains(" rows, ").contains("B a row");
            assertThat(rows.get(2).measured().ops()).as("redeliveries answered DUPLICATE, or an error").isPositive();
            // A 24th of the messages was loaded expired: the row-by-row purge deletes exactly those; the drop's count is the planner's estimate.
            assertThat(rows.get(3).measured().ops()).isEqualTo(1000);
            assertThat(rows.get(7).measured().ops()).as("the expired hour's partition dropped").isPositive();
            assertThat(rows.get(7).note()).contains("partition dropped");
            assertThat(rows).allSatisfy(row -> assertThat(row.measured().errors()).isZero());
        }
    }

    @Test
    void scaleRunsOnlyTheLayoutsAskedForAndEstimatesItsDisk() throws Exception {
        Options options = Options.parse(new String[] {"--duration", "300ms", "--warmup", "100ms", "--parts", "scale", "--rows", "24000",
                "--backends", "postgresql", "--layouts", "partitioned"});
        try (Postgres pg = new Postgres(RealServices.postgresUrl())) {
            List<Row> rows = new ScaleBench(options, pg).run();
            assertThat(rows).hasSize(7).allSatisfy(row -> assertThat(row.backend()).isEqualTo("PostgreSQL, by partition (1 h)"));
        }
        assertThat(ScaleBench.estimatedBytes(24_000_000, 2)).isEqualTo(25_000_000L * 500 * 2);
        assertThat(ScaleBench.freeBytes(dir.toString())).isPositive();
        assertThat(ScaleBench.freeBytes("/no/such/data/directory")).isEqualTo(-1);
        Options huge = Options.parse(new String[] {"--parts", "scale", "--rows", "1000000000", "--backends", "postgresql"});
        try (Postgres pg = new Postgres(RealServices.postgresUrl())) {
            String dataDirectory;
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(RealServices.postgresUrl());
                 java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery("SHOW data_directory")) {
                rs.next();
                dataDirectory = rs.getString(1);
            }
            long free = ScaleBench.freeBytes(dataDirectory);
            // Only where the refusal is certain: a server on this machine with less than the 1 TB asked for.
            org.junit.jupiter.api.Assumptions.assumeTrue(free >= 0 && free < ScaleBench.estimatedBytes(huge.scaleRows, 2),
                    "the data directory is not on this machine, or has room for 10^9 rows twice");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ScaleBench(huge, pg).run())
                    .isInstanceOf(ScaleBench.NotEnoughDisk.class)
                    .hasMessageContaining("not enough free disk for the scale part: PostgreSQL: 1,000,000,000 rows (and an hour more) x 500 B x 2 table(s)")
                    .hasMessageContaining("lower --rows or load one table (--layouts)");
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Options.parse(new String[] {"--layouts", "unpartitioned,sharded"}))
                .hasMessageContaining("unknown layout 'sharded'; layouts are unpartitioned, partitioned");
    }

    @Test
    void anOperationSlowerThanTheWindowStillCountsAndStretchesIt() throws Exception {
        Measured m = LoadLoop.run(2, Duration.ZERO, Duration.ofMillis(20), t -> () -> Thread.sleep(300));
        assertThat(m.ops()).as("each thread's first operation after the warm-up").isEqualTo(2);
        assertThat(m.seconds()).as("the window, stretched to the end of the slow operations").isGreaterThanOrEqualTo(0.3);
        assertThat(m.rate()).isPositive();
    }

    @Test
    void optionsAreValidated() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Options.parse(new String[] {"--parts", "store,nope"}))
                .hasMessageContaining("unknown part 'nope'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Options.parse(new String[] {"--rows", "100"}))
                .hasMessageContaining("--rows must be 24,000-1,000,000,000, was 100");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Options.parse(new String[] {"--backends", "redis,mongodb"}))
                .hasMessageContaining("unknown backend 'mongodb'; backends are postgresql, sqlite, mariadb, redis-raw, redis, redis-cluster");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Options.parse(new String[] {"--duration", "soon"}))
                .hasMessageContaining("--duration must be a duration");
        Options o = Options.parse(new String[] {"--parts=store", "--duration=9s"});
        assertThat(o.parts).containsExactly("store");
        assertThat(o.warmup).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.growth).isEqualTo(Duration.ofSeconds(36));
    }
}
