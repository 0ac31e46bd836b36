package dev.idem.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Command line of {@code ./idem bench}. */
final class Options {
    static final Set<String> ALL_PARTS = Set.of("store", "endpoint", "webflux", "inbox", "peers", "growth", "scale", "scale-inbox");
    static final List<String> BACKENDS = List.of("postgresql", "sqlite", OwnServerBench.MARIADB, OwnServerBench.REDIS_RAW,
            RedisStoreBench.ONE, RedisStoreBench.CLUSTER, NatsKvStoreBench.BACKEND);

    Set<String> parts = new LinkedHashSet<>(List.of("store", "endpoint", "webflux", "inbox", "peers", "growth"));
    Duration duration = Duration.ofSeconds(8);
    Duration warmup = null;
    List<Integer> threads = List.of(1, 8, 32);
    Set<String> backends = new LinkedHashSet<>(List.of("postgresql", "sqlite", OwnServerBench.MARIADB, OwnServerBench.REDIS_RAW));
    String pgUrl = firstNonBlank(System.getenv("IDEM_PG_URL"), "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    String mariadbUrl = firstNonBlank(System.getenv("IDEM_MYSQL_URL"), "jdbc:mariadb://127.0.0.1:3306/test?user=root");
    String natsUrl = firstNonBlank(System.getenv("IDEM_NATS_URL"), "nats://127.0.0.1:4222");
    Path out = Path.of("data/bench");
    int connections = 8;
    Duration growth = null;
    /** Records the scale part loads into each of its two tables. */
    long scaleRows = 10_000_000;
    /** The scale part's tables: the unpartitioned one, the one with retention by partition, or both. */
    static final List<String> LAYOUTS = List.of("unpartitioned", "partitioned");
    Set<String> scaleLayouts = new LinkedHashSet<>(LAYOUTS);
    boolean pgbench = true;
    boolean vacuum = true;
    String label = null;
    boolean cache = true;
    /** Coalesced commits forced on or off; null: the dialect's default. */
    Boolean coalesce = null;

    static final String USAGE = String.join("\n",
            "usage: ./idem bench [options]",
            "  --parts store,endpoint,webflux,inbox,peers,growth   which parts to run (default: these six); webflux: the endpoint",
            "                                on Spring WebFlux and Reactor Netty, without idem and behind IdempotencyWebFilter; peers: the inbox claim against",
            "                                Spring Integration's JdbcMetadataStore and Camel's JdbcMessageIdRepository; also",
            "                                scale (opt-in, minutes): PostgreSQL tables of --rows records, unpartitioned and by partition,",
            "                                on PostgreSQL and MariaDB, each when --backends includes it (both do by default);",
            "                                scale-inbox (opt-in): the inbox on PostgreSQL holding --rows processed messages, the same layouts",
            "  --rows 10000000               records the scale part loads into each table (default 10,000,000; at least 24,000);",
            "                                it refuses to start when the estimate (about 500 B a record a table) exceeds the",
            "                                free space of the database's data directory, when that directory is on this machine",
            "  --layouts unpartitioned,partitioned   the scale part's tables (default both): one alone halves a big run's disk and time",
            "  --duration 8s                 measured window of each case (default 8s); warm-up is a third of it",
            "  --warmup 3s                   warm-up of each case (default: duration/3, at least 1s)",
            "  --threads 1,8,32              store thread counts (default 1,8,32)",
            "  --backends postgresql,sqlite,mariadb,redis-raw",
            "                                store backends (default: these four): mariadb and redis-raw each set idem's store",
            "                                against the same SQL / Lua scripts sent by the raw client (MariaDB driver, Lettuce",
            "                                EVALSHA on a private master and replica); also redis (a private master and its",
            "                                replica) and redis-cluster (a private cluster: 3 masters, 3 replicas), each started",
            "                                for the run, without and with replica acknowledgement (WAIT 1); both: ratio 3 : 1 master;",
            "                                and nats-kv: the NATS KV store against the raw KV client doing the same create and",
            "                                update, on one node (--nats-url, a bucket of 1 replica) and on a 3-node cluster started",
            "                                for the run (a bucket of 3 replicas)",
            "  --connections 8               HTTP connections of the endpoint load driver (default 8)",
            "  --growth 40s                  length of the growth run (default max(30s, 4 x duration))",
            "  --no-vacuum                   growth: do not VACUUM the table while it runs (when autovacuum is off)",
            "  --no-pgbench                  skip the pgbench lines",
            "  --no-cache                    skip the replay lines with the completed-response cache",
            "  --coalesce, --no-coalesce     JDBC store with / without coalesced commits (default: the dialect's, on for SQLite only)",
            "  --pg-url URL                  admin JDBC URL (default IDEM_PG_URL or jdbc:postgresql://127.0.0.1:5432/test?user=postgres);",
            "                                a database idem_bench_<pid> is created there and dropped at the end",
            "  --mariadb-url URL             admin JDBC URL for mariadb (default IDEM_MYSQL_URL or jdbc:mariadb://127.0.0.1:3306/test?user=root);",
            "                                a database idem_bench_<pid> is created there and dropped at the end",
            "  --nats-url URL                nats-kv's one node (default IDEM_NATS_URL or nats://127.0.0.1:4222; JetStream on)",
            "  --out data/bench              where the table and JSON go",
            "  --label text                  a note stored with the results");

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            switch (a) {
                case "--help", "-h" -> throw new HelpRequested();
                case "--no-pgbench" -> o.pgbench = false;
                case "--no-vacuum" -> o.vacuum = false;
                case "--no-cache" -> o.cache = false;
                case "--no-coalesce" -> o.coalesce = false;
                case "--coalesce" -> o.coalesce = true;
                default -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException("option " + a + " needs a value");
                        }
                        value = args[++i];
                    }
                    o.set(a, value);
                }
            }
        }
        if (o.warmup == null) {
            o.warmup = Duration.ofMillis(Math.max(1000, o.duration.toMillis() / 3));
        }
        if (o.growth == null) {
            o.growth = Duration.ofMillis(Math.max(30_000, o.duration.toMillis() * 4));
        }
        return o;
    }

    private void set(String option, String value) {
        switch (option) {
            case "--parts" -> {
                parts = new LinkedHashSet<>();
                for (String p : value.split(",")) {
                    String part = p.trim().toLowerCase(Locale.ROOT);
                    if (!ALL_PARTS.contains(part)) {
                        throw new IllegalArgumentException("unknown part '" + part + "'; parts are store, endpoint, webflux, inbox, peers, growth, scale, scale-inbox");
                    }
                    parts.add(part);
                }
            }
            case "--duration" -> duration = duration(option, value);
            case "--warmup" -> warmup = duration(option, value);
            case "--growth" -> growth = duration(option, value);
            case "--rows" -> {
                scaleRows = Long.parseLong(value.replace("_", "").replace(",", ""));
                if (scaleRows < 24_000 || scaleRows > 1_000_000_000L) {
                    throw new IllegalArgumentException("--rows must be 24,000-1,000,000,000, was " + scaleRows);
                }
            }
            case "--layouts" -> {
                scaleLayouts = new LinkedHashSet<>();
                for (String l : value.split(",")) {
                    String layout = l.trim().toLowerCase(Locale.ROOT);
                    if (!LAYOUTS.contains(layout)) {
                        throw new IllegalArgumentException("unknown layout '" + layout + "'; layouts are " + String.join(", ", LAYOUTS));
                    }
                    scaleLayouts.add(layout);
                }
            }
            case "--threads" -> {
                List<Integer> list = new ArrayList<>();
                for (String t : value.split(",")) {
                    int n = Integer.parseInt(t.trim());
                    if (n < 1 || n > 64) {
                        throw new IllegalArgumentException("--threads must be 1-64 each, was " + n);
                    }
                    list.add(n);
                }
                threads = list;
            }
            case "--backends" -> {
                backends = new LinkedHashSet<>();
                for (String b : value.split(",")) {
                    String backend = b.trim().toLowerCase(Locale.ROOT);
                    if (!BACKENDS.contains(backend)) {
                        throw new IllegalArgumentException("unknown backend '" + backend + "'; backends are " + String.join(", ", BACKENDS));
                    }
                    backends.add(backend);
                }
            }
            case "--connections" -> {
                connections = Integer.parseInt(value);
                if (connections < 1 || connections > 256) {
                    throw new IllegalArgumentException("--connections must be 1-256, was " + connections);
                }
            }
            case "--pg-url" -> pgUrl = value;
            case "--mariadb-url" -> {
                if (!value.startsWith("jdbc:mariadb://")) {
                    throw new IllegalArgumentException("--mariadb-url must be a jdbc:mariadb:// URL");
                }
                mariadbUrl = value;
            }
            case "--nats-url" -> natsUrl = value;
            case "--out" -> out = Path.of(value);
            case "--label" -> label = value;
            default -> throw new IllegalArgumentException("unknown option " + option + "\n" + USAGE);
        }
    }

    static Duration duration(String option, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (v.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            } else if (v.endsWith("s")) {
                d = Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            } else if (v.endsWith("m")) {
                d = Duration.ofSeconds(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60));
            } else {
                d = Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
            }
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(option + " must be positive, was " + value);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a duration such as 10s, 500ms or 2m, was '" + value + "'");
        }
    }

    private static String firstNonBlank(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }

    static final class HelpRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HelpRequested() {
            super(null, null, false, false);
        }
    }
}
