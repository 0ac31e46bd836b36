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
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The store part's Redis backends: the JDBC backends' claim + complete of new keys, on one Redis master
 * ({@code redis}) and on a Redis Cluster of three masters ({@code redis-cluster}), each master with one
 * replica, with replica acknowledgement ({@code WAIT 1}) off and on. Both set-ups are started here,
 * for this run only.
 *
 * <p>The machine is shared (two cores here, and other work may run), so a line is measured in
 * {@link #ROUNDS} rounds of a third of the window, and at each thread count the lines' rounds take
 * turns, each round in a different order: a change in background load then falls on every line alike,
 * and the ratios hold where the rates do not. Each round starts on an emptied Redis. A line's note
 * gives the CPU its servers and this JVM used (on two cores, a sum near 2 means the machine, not
 * Redis, is the limit) and, without WAIT, the memory a record takes on its master.
 */
final class RedisStoreBench {
    static final String ONE = "redis";
    static final String CLUSTER = "redis-cluster";
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(1);
    static final int ROUNDS = 3;
    private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(30);

    private static final String NO_WAIT = "claim+complete (idem), no WAIT";
    private static final String WAIT = "claim+complete (idem), WAIT 1 replica";
    private static final String ONE_LABEL = "Redis, 1 master";
    private static final String CLUSTER_LABEL = "Redis Cluster, 3 masters";

    private final Options options;
    private final Path work;

    RedisStoreBench(Options options, Path work) {
        this.options = options;
        this.work = work;
    }

    static boolean wanted(Options options) {
        return options.backends.contains(ONE) || options.backends.contains(CLUSTER);
    }

    /** One store on one set-up: the servers it runs on (ports, to empty and weigh them; processes, for their CPU). */
    private record Target(String name, RedisIdempotencyStore store, List<Integer> ports, List<Long> serverPids) {
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

    /** The lines of one thread count, their rounds in turns: one master, then the cluster; no WAIT, then WAIT. */
    private List<Row> lines(Setups s, int threads) throws InterruptedException {
        Line a = s.oneOff == null ? null : new Line(s.oneOff);
        Line b = s.oneAck == null ? null : new Line(s.oneAck);
        Line c = s.clusterOff == null ? null : new Line(s.clusterOff);
        Line d = s.clusterAck == null ? null : new Line(s.clusterAck);
        List<Line> turns = Stream.of(a, b, c, d).filter(Objects::nonNull).toList();
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < turns.size(); i++) {
                measureRound(s.admin, turns.get((i + round) % turns.size()), threads, round);
            }
        }
        List<Row> rows = new ArrayList<>();
        if (a != null) {
            rows.add(a.row(NO_WAIT, ONE_LABEL, threads, "redis-server " + s.version + ", AOF everysec; " + a.bytesPerRecord()));
            rows.add(b.row(WAIT, ONE_LABEL, threads, null).compare("1 master, no WAIT", a.measured()));
        }
        if (c != null) {
            rows.add(c.row(NO_WAIT, CLUSTER_LABEL, threads, c.bytesPerRecord()).compare("1 master, no WAIT", a == null ? null : a.measured()));
            String ofNoWait = String.format(Locale.ROOT, "%.2f of cluster no WAIT", d.measured().rate() / c.measured().rate());
            rows.add(d.row(WAIT, CLUSTER_LABEL, threads, ofNoWait).compare("1 master, WAIT 1", b == null ? null : b.measured()));
        }
        return rows;
    }

    private void measureRound(RedisClient admin, Line line, int threads, int round) throws InterruptedException {
        Target target = line.target;
        flushAll(admin, target.ports());
        Bench.progress("store " + target.name() + " claim+complete, " + threads + " threads, round " + (round + 1) + " of " + ROUNDS);
        long[] before = dataset(admin, target.ports());
        CpuMeter cpu = new CpuMeter(target.serverPids());
        Measured m = StoreBench.firstExecutions(target.store(), threads, options.warmup.dividedBy(ROUNDS),
                options.duration.dividedBy(ROUNDS), line.latencies);
        cpu.addTo(line);
        long[] after = dataset(admin, target.ports());
        line.rounds.add(m);
        line.datasetBytes += after[0] - before[0];
        line.records += after[1] - before[1];
    }

    /** What one line measured over its rounds. */
    private static final class Line {
        final Target target;
        final List<Measured> rounds = new ArrayList<>();
        final List<Latencies> latencies = new ArrayList<>();
        long serverCpuNanos;
        long clientCpuNanos;
        long wallNanos;
        long datasetBytes;
        long records;

        Line(Target target) {
            this.target = target;
        }

        Measured measured() {
            return LoadLoop.merge(rounds, latencies);
        }

        Row row(String name, String backend, int threads, String note) {
            String cpu = String.format(Locale.ROOT, "cpu: servers %.2f, client %.2f cores",
                    serverCpuNanos / (double) wallNanos, clientCpuNanos / (double) wallNanos);
            return new Row("store", name, backend, threads, measured(), "ops/s", null, Double.NaN, note == null ? cpu : note + "; " + cpu);
        }

        /** The masters' dataset memory ({@code used_memory_dataset}) per record stored, its index entry included. */
        String bytesPerRecord() {
            return records <= 0 ? "memory: -" : String.format(Locale.ROOT, "%,d B/record", datasetBytes / records);
        }
    }

    /** The servers started for this run and a store without and with replica acknowledgement on each. */
    private static final class Setups implements AutoCloseable {
        private final List<RedisIdempotencyStore> stores = new ArrayList<>();
        private final RedisClient admin = RedisClient.create();
        private StandaloneRedis single;
        private RedisCluster three;
        private String version;
        private Target oneOff;
        private Target oneAck;
        private Target clusterOff;
        private Target clusterAck;

        void startOne(Path server, Path work) throws IOException, InterruptedException {
            Bench.progress("redis: starting a master and its replica");
            single = StandaloneRedis.start(server, work);
            version = single.version();
            List<Integer> ports = single.ports();
            oneOff = target(ONE_LABEL + ", no WAIT", RedisIdempotencyStore.builder(single.uri()), ports, single.pids());
            oneAck = target(ONE_LABEL + ", WAIT 1", RedisIdempotencyStore.builder(single.uri()).replicaAcknowledgement(1, ACK_TIMEOUT),
                    ports, single.pids());
        }

        void startCluster() {
            Bench.progress("redis-cluster: starting three masters and three replicas");
            three = RedisCluster.start();
            Bench.progress("redis-cluster: ready after " + three.startTime().toMillis() + " ms");
            List<RedisURI> nodes = three.nodeUris().stream().map(RedisURI::create).toList();
            List<Integer> ports = three.ports();
            List<Long> pids = ports.stream().map(three::pid).toList();
            clusterOff = target(CLUSTER_LABEL + ", no WAIT", RedisIdempotencyStore.clusterBuilder(nodes).noReplicaAcknowledgement(), ports, pids);
            // The cluster's default: one replica acknowledges every write within 1 s.
            clusterAck = target(CLUSTER_LABEL + ", WAIT 1", RedisIdempotencyStore.clusterBuilder(nodes), ports, pids);
        }

        private Target target(String name, RedisIdempotencyStore.Builder builder, List<Integer> ports, List<Long> pids) {
            // The store's default checks: both set-ups persist (appendonly yes, everysec), so none is skipped.
            RedisIdempotencyStore store = builder.build();
            stores.add(store);
            return new Target(name, store, ports, pids);
        }

        @Override
        public void close() throws InterruptedException {
            stores.forEach(RedisIdempotencyStore::close);
            admin.shutdown(0, 2, TimeUnit.SECONDS);
            if (three != null) {
                three.close();
            }
            if (single != null) {
                single.close();
            }
        }
    }

    /**
     * Empties the servers at {@code ports}: {@code FLUSHALL} on each master, then {@code WAIT} on the
     * same connection until its replicas have done it too. Without the wait a replica still freeing the
     * last round's records (seconds, on a busy two-core machine) holds up the next round's first
     * acknowledged writes past their 1 s timeout.
     */
    static void flushAll(RedisClient admin, List<Integer> ports) {
        onMasters(admin, ports, (port, redis, replicas) -> {
            redis.flushall();
            long acknowledged = replicas == 0 ? 0 : redis.waitForReplication(replicas, FLUSH_TIMEOUT.toMillis());
            if (acknowledged < replicas) {
                throw new IllegalStateException("the replicas of the master on port " + port + " did not apply FLUSHALL within "
                        + FLUSH_TIMEOUT.toSeconds() + " s (" + acknowledged + " of " + replicas + ")");
            }
        });
    }

    /**
     * {dataset bytes, records} summed over the masters at {@code ports}. Records are the keys with an
     * expiry: only a record's key has one, its shard's index does not.
     */
    static long[] dataset(RedisClient admin, List<Integer> ports) {
        long[] sum = new long[2];
        onMasters(admin, ports, (port, redis, replicas) -> {
            sum[0] += infoNumber(redis.info("memory"), "used_memory_dataset:");
            String keyspace = redis.info("keyspace");
            int at = keyspace.indexOf("expires=");
            sum[1] += at < 0 ? 0 : Long.parseLong(keyspace.substring(at + "expires=".length()).split("[,\\s]")[0]);
        });
        return sum;
    }

    private interface MasterAction {
        void run(int port, RedisCommands<String, String> redis, int replicas);
    }

    /** Runs {@code action} on each server at {@code ports} that is a master, with its count of connected replicas. */
    private static void onMasters(RedisClient admin, List<Integer> ports, MasterAction action) {
        for (int port : ports) {
            try (StatefulRedisConnection<String, String> connection = admin.connect(RedisURI.create("127.0.0.1", port))) {
                RedisCommands<String, String> redis = connection.sync();
                String replication = redis.info("replication");
                if (replication.contains("role:master")) {
                    action.run(port, redis, (int) infoNumber(replication, "connected_slaves:"));
                }
            }
        }
    }

    private static long infoNumber(String info, String field) {
        return info.lines().filter(l -> l.startsWith(field)).mapToLong(l -> Long.parseLong(l.substring(field.length()).trim()))
                .findFirst().orElse(0);
    }

    private static Path binary(String name) {
        return StandaloneRedis.binary(name).orElseThrow(() -> new IllegalStateException("the redis and redis-cluster backends need "
                + name + " (7.0 or later) on the PATH, in /usr/bin or in /usr/local/bin; install Redis (e.g. apt-get install redis-server)"));
    }

    /** CPU time used by the server processes and by this JVM from construction to {@link #addTo}. */
    private static final class CpuMeter {
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

        void addTo(Line line) {
            line.wallNanos += System.nanoTime() - started;
            line.serverCpuNanos += serverNanos() - servers;
            line.clientCpuNanos += cpuNanos(ProcessHandle.current()) - client;
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
