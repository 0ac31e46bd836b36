package dev.idem.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Redis Cluster on loopback for tests: three masters and three replicas, each a
 * {@code redis-server} process of its own ({@code cluster-enabled yes}, {@code appendonly yes},
 * {@code cluster-node-timeout 2000}), joined with {@code redis-cli --cluster create … --cluster-replicas 1}.
 * Data lives in a fresh temporary folder, deleted on {@link #close()}.
 *
 * <ul>
 * <li>{@link #shared()}: one cluster per JVM for suites that only read and write. The cluster named
 *     by {@code IDEM_REDIS_CLUSTER} (comma-separated {@code host:port} of its nodes) if set, else one
 *     this class starts on the first free ports from 7101 up (each port and port + 10000, the
 *     cluster bus, free) and stops when the JVM exits.</li>
 * <li>{@link #start()}: a private cluster, for a test that kills nodes; the caller closes it.</li>
 * </ul>
 *
 * Needs {@code redis-server} and {@code redis-cli} (7.0 or later) on the {@code PATH} or in
 * {@code /usr/bin} or {@code /usr/local/bin}; without them the calling test is skipped, or fails when
 * {@code IDEM_REQUIRE_SERVICES} is {@code all} or names {@code redis-cluster} (see
 * {@link RealServices#unavailable}). This class needs no Redis client: it drives {@code redis-cli}.
 */
public final class RedisCluster implements AutoCloseable {
    /** The environment variable naming an existing cluster's nodes. */
    public static final String ENV = "IDEM_REDIS_CLUSTER";
    /** The name {@code IDEM_REQUIRE_SERVICES} knows this service by. */
    public static final String SERVICE = "redis-cluster";
    /** How long a node waits before its peers count it as failed; its replica is promoted soon after. */
    public static final Duration NODE_TIMEOUT = Duration.ofMillis(2000);

    private static final int FIRST_PORT = 7101;
    private static final int LAST_PORT = 7999;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static RedisCluster shared;

    private final String host;
    /** Port to process, in start order; a null process for a node this class did not start. */
    private final Map<Integer, Process> nodes;
    private final Path dir;
    private final Path cli;
    private final Path server;
    private final Duration startTime;
    private volatile boolean closed;

    private RedisCluster(String host, Map<Integer, Process> nodes, Path dir, Path cli, Path server, Duration startTime) {
        this.host = host;
        this.nodes = nodes;
        this.dir = dir;
        this.cli = cli;
        this.server = server;
        this.startTime = startTime;
    }

    /**
     * The cluster at {@code IDEM_REDIS_CLUSTER}, else one started for this JVM (stopped by a shutdown
     * hook). Skips the calling test (or fails it, see the class comment) when neither can be had.
     */
    public static synchronized RedisCluster shared() {
        if (shared != null) {
            return shared;
        }
        String configured = System.getenv(ENV);
        if (configured != null && !configured.isBlank()) {
            Map<Integer, Process> nodes = new LinkedHashMap<>();
            String host = null;
            for (String node : configured.split(",")) {
                String hostPort = node.trim().replaceFirst("^redis://", "");
                int colon = hostPort.lastIndexOf(':');
                if (colon < 1) {
                    throw new IllegalArgumentException(ENV + " must list host:port of the cluster's nodes, comma-separated; '" + hostPort + "' is not one");
                }
                host = hostPort.substring(0, colon);
                nodes.put(Integer.parseInt(hostPort.substring(colon + 1)), null);
            }
            int first = nodes.keySet().iterator().next();
            if (!RealServices.answers(host, first)) {
                RealServices.unavailable(SERVICE, "nothing answers at " + host + ":" + first + " (" + ENV + ")");
            }
            shared = new RedisCluster(host, nodes, null, findBinary("redis-cli").orElse(null), null, Duration.ZERO);
            return shared;
        }
        RedisCluster started = start();
        Runtime.getRuntime().addShutdownHook(new Thread(started::close, "idem-redis-cluster-stop"));
        shared = started;
        return shared;
    }

    /**
     * Starts a private cluster of six nodes on free loopback ports and returns once every slot is
     * served and every master has its replica in sync (within 60 s); the caller closes it.
     */
    public static RedisCluster start() {
        Optional<Path> server = findBinary("redis-server");
        Optional<Path> cli = findBinary("redis-cli");
        if (server.isEmpty() || cli.isEmpty()) {
            RealServices.unavailable(SERVICE, "redis-server and redis-cli are needed to start a cluster of six nodes,"
                    + " and " + (server.isEmpty() ? "redis-server" : "redis-cli") + " is not installed (or set " + ENV + ")");
            throw new AssertionError("unreachable");
        }
        long began = System.nanoTime();
        Path dir;
        try {
            dir = Files.createTempDirectory("idem-redis-cluster-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a folder for the cluster's data", e);
        }
        Map<Integer, Process> nodes = Collections.synchronizedMap(new LinkedHashMap<>());
        RedisCluster cluster = new RedisCluster("127.0.0.1", nodes, dir, cli.get(), server.get(), Duration.ZERO);
        try {
            int port = FIRST_PORT;
            for (int i = 0; i < 6; i++) {
                port = freePort(port);
                nodes.put(port, startNode(server.get(), dir, port));
                port++;
            }
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            for (Map.Entry<Integer, Process> node : nodes.entrySet()) {
                waitFor(node.getKey(), node.getValue(), dir, deadline);
            }
            List<String> create = new ArrayList<>(List.of("--cluster", "create"));
            nodes.keySet().forEach(p -> create.add("127.0.0.1:" + p));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            String created = cluster.cli(nodes.keySet().iterator().next(), create.toArray(new String[0]));
            if (!created.contains("All 16384 slots covered")) {
                throw new IllegalStateException("redis-cli --cluster create did not cover every slot:\n" + created);
            }
            cluster.awaitHealthy(deadline);
            return new RedisCluster("127.0.0.1", nodes, dir, cli.get(), server.get(), Duration.ofNanos(System.nanoTime() - began));
        } catch (RuntimeException | IOException | InterruptedException e) {
            // The binaries are there, so this is a failure, not a missing service.
            cluster.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("the Redis cluster did not come up: " + e.getMessage(), e);
        }
    }

    /** {@code redis://host:port} of every node, masters and replicas, in start order. */
    public List<String> nodeUris() {
        return ports().stream().map(p -> "redis://" + host + ":" + p).toList();
    }

    /** The loopback (or configured) host of every node. */
    public String host() {
        return host;
    }

    /** Every node's port, in start order. */
    public List<Integer> ports() {
        synchronized (nodes) {
            return List.copyOf(nodes.keySet());
        }
    }

    /** Whether this class started the nodes (and so can kill them); false for {@code IDEM_REDIS_CLUSTER}. */
    public boolean owned() {
        return dir != null;
    }

    /** How long {@link #start()} took, from the first process to a healthy cluster. */
    public Duration startTime() {
        return startTime;
    }

    /** The process id of the node at {@code port}. */
    public long pid(int port) {
        return process(port).pid();
    }

    /**
     * Kills the node at {@code port} with SIGKILL (what {@code kill -9} sends), as a crash would: no
     * shutdown, no last write to disk. Returns once the process is gone.
     */
    public void kill(int port) throws InterruptedException {
        Process process = process(port);
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server on port " + port + " (pid " + process.pid() + ") survived SIGKILL");
        }
    }

    /**
     * Starts the node at {@code port} again, on its data and cluster configuration, as a supervisor
     * restarts a crashed process; returns once it answers. A master that was replaced in a failover
     * rejoins as a replica of the node that took over.
     */
    public void restart(int port) throws IOException, InterruptedException {
        Process old = process(port);
        if (old.isAlive()) {
            throw new IllegalStateException("the node on port " + port + " is still running");
        }
        Process started = startNode(server, dir, port);
        nodes.put(port, started);
        waitFor(port, started, dir, System.nanoTime() + START_TIMEOUT.toNanos());
    }

    /** Runs {@code redis-cli -h host -p port args…} and answers what it printed. */
    public String cli(int port, String... args) throws IOException, InterruptedException {
        if (cli == null) {
            throw new IllegalStateException("redis-cli is not installed");
        }
        List<String> command = new ArrayList<>(List.of(cli.toString(), "-h", host, "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("redis-cli " + String.join(" ", args) + " did not finish");
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /** Stops the nodes this class started (SIGTERM, then SIGKILL) and deletes their data. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Process> started;
        synchronized (nodes) {
            started = nodes.values().stream().filter(p -> p != null).toList();
        }
        started.forEach(Process::destroy);
        for (Process p : started) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        if (dir != null) {
            deleteTree(dir);
        }
    }

    @Override
    public String toString() {
        return "RedisCluster" + nodeUris() + (owned() ? " (started here)" : " (" + ENV + ")");
    }

    // ---- starting ------------------------------------------------------------------------------

    private Process process(int port) {
        Process process = nodes.get(port);
        if (process == null) {
            throw new IllegalStateException("the node on port " + port + " was not started by this class, so it cannot be killed");
        }
        return process;
    }

    private static Process startNode(Path server, Path dir, int port) throws IOException {
        Path data = Files.createDirectories(dir.resolve(Integer.toString(port)));
        return new ProcessBuilder(List.of(server.toString(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--daemonize", "no",
                "--cluster-enabled", "yes", "--cluster-config-file", data.resolve("nodes.conf").toString(),
                "--cluster-node-timeout", Long.toString(NODE_TIMEOUT.toMillis()),
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                // A restarted node resyncs at once, not after the default 5 s wait for more replicas.
                "--repl-diskless-sync-delay", "0",
                "--enable-debug-command", "local",
                "--dir", data.toString(), "--logfile", data.resolve("redis.log").toString()))
                .redirectErrorStream(true).redirectOutput(data.resolve("stdout.log").toFile()).start();
    }

    private static void waitFor(int port, Process process, Path dir, long deadline) throws IOException, InterruptedException {
        while (!RealServices.answers("127.0.0.1", port)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                Path log = dir.resolve(Integer.toString(port)).resolve("redis.log");
                throw new IllegalStateException("redis-server did not come up on port " + port + ": "
                        + (Files.exists(log) ? Files.readString(log) : "no log"));
            }
            Thread.sleep(20);
        }
    }

    /** Every node says the cluster is ok, and every master has a replica whose link is up. */
    private void awaitHealthy(long deadline) throws IOException, InterruptedException {
        String last = "";
        while (System.nanoTime() < deadline) {
            int masters = 0;
            int synced = 0;
            boolean ok = true;
            for (int port : ports()) {
                String info = cli(port, "cluster", "info");
                ok &= info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384");
                String replication = cli(port, "info", "replication");
                if (replication.contains("role:master")) {
                    masters++;
                } else if (replication.contains("master_link_status:up")) {
                    synced++;
                }
                last = info + replication;
            }
            if (ok && masters == 3 && synced == 3) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the cluster did not become healthy: " + last);
    }

    /** The first port from {@code from} that is free, with its cluster bus port (+10000) free too. */
    private static int freePort(int from) {
        for (int port = from; port <= LAST_PORT; port++) {
            if (free(port) && free(port + 10000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair between " + from + " and " + LAST_PORT);
    }

    private static boolean free(int port) {
        if (RealServices.answers("127.0.0.1", port)) {
            return false;
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static Optional<Path> findBinary(String name) {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String folder : path.split(java.io.File.pathSeparator)) {
                if (!folder.isBlank()) {
                    candidates.add(Path.of(folder, name));
                }
            }
        }
        candidates.add(Path.of("/usr/bin", name));
        candidates.add(Path.of("/usr/local/bin", name));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temporary folder left behind is harmless.
        }
    }
}
