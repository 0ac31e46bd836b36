package dev.idem.bench;

import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.testing.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The store part's Redis backends: the JDBC backends' claim + complete of new keys, on one Redis master
 * ({@code redis}) and on a Redis Cluster of three masters ({@code redis-cluster}), each master with one
 * replica, with replica acknowledgement ({@code WAIT 1}) off and on. Both set-ups are started here,
 * for this run only, and run alternately at each thread count so that both see the same machine.
 * Each line starts on an empty Redis and notes the CPU its servers and this JVM used while it ran:
 * on a small machine that, not Redis, is what limits the cluster.
 */
final class RedisStoreBench {
    static final String ONE = "redis";
    static final String CLUSTER = "redis-cluster";
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(30);

    private static final String NO_WAIT = "claim+complete (idem), no WAIT";
    private static final String WAIT = "claim+complete (idem), WAIT 1 replica";
    private static final String ONE_LABEL = "Redis, 1 master";
    private static final String CLUSTER_LABEL = "Redis Cluster, 3 masters";

    private final Options options;
    private final Path work;
    private final StoreBench loop;

    RedisStoreBench(Options options, Path work) {
        this.options = options;
        this.work = work;
        this.loop = new StoreBench(options, null, work);
    }

    static boolean wanted(Options options) {
        return options.backends.contains(ONE) || options.backends.contains(CLUSTER);
    }

    /** A line measured, with the CPU its servers and the client used meanwhile. */
    record Run(Measured measured, String cpu) {
    }

    /** One store on one set-up: how to empty it before a line, and which processes serve it. */
    private record Target(RedisIdempotencyStore store, Runnable flush, List<Long> serverPids) {
    }

    List<Row> run() throws Exception {
        try (Setups setups = new Setups()) {
            if (options.backends.contains(ONE)) {
                setups.startOne(binary("redis-server"), work);
            }
            if (options.backends.contains(CLUSTER)) {
                binary("redis-server");
                binary("redis-cli");
                setups.startCluster();
            }
            List<Row> rows = new ArrayList<>();
            for (int threads : options.threads) {
                rows.addAll(lines(setups, threads));
            }
            return rows;
        }
    }

    /** The lines of one thread count, measured one after the other: one master, then the cluster; no WAIT, then WAIT. */
    private List<Row> lines(Setups s, int threads) throws InterruptedException {
        Run a = s.oneOff == null ? null : measure(ONE_LABEL + ", no WAIT", s.oneOff, threads);
        Run b = s.oneAck == null ? null : measure(ONE_LABEL + ", WAIT 1", s.oneAck, threads);
        Run c = s.clusterOff == null ? null : measure(CLUSTER_LABEL + ", no WAIT", s.clusterOff, threads);
        Run d = s.clusterAck == null ? null : measure(CLUSTER_LABEL + ", WAIT 1", s.clusterAck, threads);
        List<Row> rows = new ArrayList<>();
        if (a != null) {
            rows.add(row(NO_WAIT, ONE_LABEL, threads, a, "redis-server " + s.version + ", AOF everysec"));
            rows.add(row(WAIT, ONE_LABEL, threads, b, null).compare("1 master, no WAIT", a.measured()));
        }
        if (c != null) {
            rows.add(row(NO_WAIT, CLUSTER_LABEL, threads, c, null).compare("1 master, no WAIT", a == null ? null : a.measured()));
            String ofNoWait = String.format(Locale.ROOT, "%.2f of cluster no WAIT", d.measured().rate() / c.measured().rate());
            rows.add(row(WAIT, CLUSTER_LABEL, threads, d, ofNoWait).compare("1 master, WAIT 1", b == null ? null : b.measured()));
        }
        return rows;
    }

    /** The servers started for this run and a store without and with replica acknowledgement on each. */
    private static final class Setups implements AutoCloseable {
        private final List<RedisIdempotencyStore> stores = new ArrayList<>();
        private StandaloneRedis single;
        private RedisCluster three;
        private RedisClient admin;
        private String version;
        private Target oneOff;
        private Target oneAck;
        private Target clusterOff;
        private Target clusterAck;

        void startOne(Path server, Path work) throws IOException, InterruptedException {
            Bench.progress("redis: starting a master and its replica");
            single = StandaloneRedis.start(server, work);
            version = single.version();
            oneOff = target(RedisIdempotencyStore.builder(single.uri()), single::flush, single.pids());
            oneAck = target(RedisIdempotencyStore.builder(single.uri()).replicaAcknowledgement(1, ACK_TIMEOUT), single::flush, single.pids());
        }

        void startCluster() {
            Bench.progress("redis-cluster: starting three masters and three replicas");
            three = RedisCluster.start();
            Bench.progress("redis-cluster: ready after " + three.startTime().toMillis() + " ms");
            List<RedisURI> nodes = three.nodeUris().stream().map(RedisURI::create).toList();
            List<Integer> ports = three.ports();
            List<Long> pids = ports.stream().map(three::pid).toList();
            admin = RedisClient.create();
            Runnable flush = () -> flushAll(admin, ports);
            clusterOff = target(RedisIdempotencyStore.clusterBuilder(nodes).noReplicaAcknowledgement(), flush, pids);
            // The cluster's default: one replica acknowledges every write within 1 s.
            clusterAck = target(RedisIdempotencyStore.clusterBuilder(nodes), flush, pids);
        }

        private Target target(RedisIdempotencyStore.Builder builder, Runnable flush, List<Long> pids) {
            // The store's default checks: both set-ups persist (appendonly yes, everysec), so none is skipped.
            RedisIdempotencyStore store = builder.build();
            stores.add(store);
            return new Target(store, flush, pids);
        }

        @Override
        public void close() throws InterruptedException {
            stores.forEach(RedisIdempotencyStore::close);
            if (admin != null) {
                admin.shutdown(0, 2, TimeUnit.SECONDS);
            }
            if (three != null) {
                three.close();
            }
            if (single != null) {
                single.close();
            }
        }
    }

    Run measure(String what, Target target, int threads) throws InterruptedException {
        target.flush().run();
        Bench.progress("store " + what + " claim+complete, " + threads + " threads");
        CpuMeter cpu = new CpuMeter(target.serverPids());
        Measured m = loop.firstExecutions(target.store(), threads);
        return new Run(m, cpu.cores());
    }

    private static Row row(String name, String backend, int threads, Run run, String note) {
        String text = note == null ? run.cpu() : note + "; " + run.cpu();
        return new Row("store", name, backend, threads, run.measured(), "ops/s", null, Double.NaN, text);
    }

    /**
     * Empties the servers at {@code ports} before a line: {@code FLUSHALL} on each master, then
     * {@code WAIT} on the same connection until its replicas have done it too. Without the wait a
     * replica still freeing the last line's records (seconds, on a busy two-core machine) holds up the
     * next line's first acknowledged writes past their 1 s timeout.
     */
    static void flushAll(RedisClient admin, List<Integer> ports) {
        for (int port : ports) {
            try (StatefulRedisConnection<String, String> connection = admin.connect(RedisURI.create("127.0.0.1", port))) {
                RedisCommands<String, String> redis = connection.sync();
                String replication = redis.info("replication");
                if (!replication.contains("role:master")) {
                    continue;
                }
                int replicas = replication.lines().filter(l -> l.startsWith("connected_slaves:"))
                        .mapToInt(l -> Integer.parseInt(l.substring("connected_slaves:".length()).trim())).findFirst().orElse(0);
                redis.flushall();
                long acknowledged = replicas == 0 ? 0 : redis.waitForReplication(replicas, FLUSH_TIMEOUT.toMillis());
                if (acknowledged < replicas) {
                    throw new IllegalStateException("the replicas of the master on port " + port + " did not apply FLUSHALL within "
                            + FLUSH_TIMEOUT.toSeconds() + " s (" + acknowledged + " of " + replicas + ")");
                }
            }
        }
    }

    private static Path binary(String name) {
        return StandaloneRedis.binary(name).orElseThrow(() -> new IllegalStateException("the redis and redis-cluster backends need "
                + name + " (7.0 or later) on the PATH, in /usr/bin or in /usr/local/bin; install Redis (e.g. apt-get install redis-server)"));
    }

    /**
     * CPU time used by the server processes and by this JVM from construction to {@link #cores()},
     * in cores (CPU seconds per second): on two cores, a sum near 2 means the machine is the limit.
     */
    static final class CpuMeter {
        private final List<Long> pids;
        private final long servers;
        private final long client;
        private final long started;

        CpuMeter(List<Long> pids) {
            this.pids = pids;
            this.servers = serverNanos();
            this.client = cpuNanos(ProcessHandle.current());
            this.started = System.nanoTime();
        }

        String cores() {
            double wall = System.nanoTime() - started;
            return String.format(Locale.ROOT, "cpu: servers %.2f, client %.2f cores",
                    (serverNanos() - servers) / wall, (cpuNanos(ProcessHandle.current()) - client) / wall);
        }

        private long serverNanos() {
            long sum = 0;
            for (long pid : pids) {
                sum += ProcessHandle.of(pid).map(CpuMeter::cpuNanos).orElse(0L);
            }
            return sum;
        }

        private static long cpuNanos(ProcessHandle process) {
            Optional<Duration> total = process.info().totalCpuDuration();
            return total.map(Duration::toNanos).orElse(0L);
        }
    }
}
