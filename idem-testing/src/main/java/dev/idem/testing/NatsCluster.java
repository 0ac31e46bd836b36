package dev.idem.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real three-node NATS JetStream cluster on loopback for tests: three {@code nats-server}
 * processes ({@code -js}, {@code --cluster_name}, {@code --cluster}, {@code --routes}), each with its
 * own client, cluster and monitoring port (free loopback ports) and its own JetStream store folder
 * ({@code -sd}) in a fresh temporary folder, deleted on {@link #close()}. Each node takes messages of
 * up to {@link #MAX_PAYLOAD} bytes, so a response of several MiB fits in one key-value entry.
 *
 * <ul>
 * <li>{@link #shared()}: one cluster per JVM for suites that only read and write, stopped when the
 *     JVM exits.</li>
 * <li>{@link #start()}: a private cluster, for a test that kills nodes; the caller closes it.</li>
 * </ul>
 *
 * Needs {@code nats-server} (2.9 or later) on the {@code PATH} or in {@code /usr/sbin},
 * {@code /usr/bin} or {@code /usr/local/bin}; without it the calling test is skipped, or fails when
 * {@code IDEM_REQUIRE_SERVICES} is {@code all} or names {@link #SERVICE} (see
 * {@link RealServices#unavailable}). This class needs no NATS client: it reads each node's
 * monitoring endpoint ({@code /jsz}) to see that the cluster has elected its meta leader.
 */
public final class NatsCluster implements AutoCloseable {
    /** The name {@code IDEM_REQUIRE_SERVICES} knows this service by. */
    public static final String SERVICE = "nats-cluster";
    /** The largest message each node accepts ({@code max_payload}). */
    public static final int MAX_PAYLOAD = 8 * 1024 * 1024;

    private static final String CLUSTER_NAME = "idem-kv";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern META_LEADER = Pattern.compile("\"meta_cluster\"\\s*:\\s*\\{[^}]*\"leader\"\\s*:\\s*\"([^\"]+)\"");
    private static NatsCluster shared;

    private final Path server;
    private final Path dir;
    private final List<Node> nodes;
    private volatile boolean closed;

    /** One server: its name (as JetStream reports leaders), its ports and its running process. */
    private static final class Node {
        final String name;
        final int clientPort;
        final int clusterPort;
        final int monitorPort;
        volatile Process process;

        Node(String name, int clientPort, int clusterPort, int monitorPort) {
            this.name = name;
            this.clientPort = clientPort;
            this.clusterPort = clusterPort;
            this.monitorPort = monitorPort;
        }
    }

    private NatsCluster(Path server, Path dir, List<Node> nodes) {
        this.server = server;
        this.dir = dir;
        this.nodes = nodes;
    }

    /** The cluster of this JVM, started on first use and stopped by a shutdown hook. */
    public static synchronized NatsCluster shared() {
        if (shared == null) {
            NatsCluster started = start();
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "idem-nats-cluster-stop"));
            shared = started;
        }
        return shared;
    }

    /**
     * Starts a private cluster of three nodes and returns once every node answers and the cluster
     * has a JetStream meta leader (within 60 s); the caller closes it.
     */
    public static NatsCluster start() {
        Optional<Path> server = RedisCluster.findBinary("nats-server")
                .or(() -> Optional.of(Path.of("/usr/sbin/nats-server")).filter(Files::isExecutable));
        if (server.isEmpty()) {
            RealServices.unavailable(SERVICE, "nats-server is needed to start a JetStream cluster of three nodes and is not installed");
            throw new AssertionError("unreachable");
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("idem-nats-cluster-");
            Files.writeString(dir.resolve("limits.conf"), "max_payload: " + MAX_PAYLOAD + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a folder for the cluster's data", e);
        }
        List<Node> nodes = new ArrayList<>();
        List<ServerSocket> reserved = new ArrayList<>();
        try {
            for (int i = 1; i <= 3; i++) {
                nodes.add(new Node("n" + i, reserve(reserved), reserve(reserved), reserve(reserved)));
            }
        } finally {
            reserved.forEach(NatsCluster::closeQuietly);
        }
        NatsCluster cluster = new NatsCluster(server.get(), dir, nodes);
        try {
            for (Node node : nodes) {
                cluster.launch(node);
            }
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            for (Node node : nodes) {
                cluster.awaitUp(node, deadline);
            }
            cluster.awaitMetaLeader(deadline);
            return cluster;
        } catch (RuntimeException | IOException | InterruptedException e) {
            // The binary is there, so this is a failure, not a missing service.
            cluster.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("the NATS cluster did not come up: " + e.getMessage(), e);
        }
    }

    /** {@code nats://127.0.0.1:port} of every node, in start order. */
    public List<String> clientUrls() {
        return nodes.stream().map(n -> "nats://127.0.0.1:" + n.clientPort).toList();
    }

    /** Every node's server name ({@code n1}, {@code n2}, {@code n3}), as JetStream names leaders and peers. */
    public List<String> names() {
        return nodes.stream().map(n -> n.name).toList();
    }

    /** Whether the node named {@code name} is running. */
    public boolean running(String name) {
        Process p = node(name).process;
        return p != null && p.isAlive();
    }

    /**
     * Kills the node named {@code name} with SIGKILL (what {@code kill -9} sends), as a crash would:
     * no shutdown, no last write to disk. Returns once the process is gone.
     */
    public void kill(String name) throws InterruptedException {
        Node node = node(name);
        Process process = node.process;
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("nats-server " + name + " (pid " + process.pid() + ") survived SIGKILL");
        }
    }

    /**
     * Starts the node named {@code name} again on its ports and its JetStream folder, as a supervisor
     * restarts a crashed process; returns once it answers on its client port.
     */
    public void restart(String name) throws IOException, InterruptedException {
        Node node = node(name);
        if (running(name)) {
            throw new IllegalStateException("nats-server " + name + " is still running");
        }
        launch(node);
        awaitUp(node, System.nanoTime() + START_TIMEOUT.toNanos());
    }

    /** Stops every node (SIGTERM, then SIGKILL) and deletes their data. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.destroy();
            }
        }
        for (Node node : nodes) {
            Process p = node.process;
            if (p == null) {
                continue;
            }
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        RedisCluster.deleteTree(dir);
    }

    @Override
    public String toString() {
        return "NatsCluster" + clientUrls();
    }

    // ---- starting ------------------------------------------------------------------------------

    private Node node(String name) {
        return nodes.stream().filter(n -> n.name.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node named " + name + " in " + names()));
    }

    private void launch(Node node) throws IOException {
        Path data = Files.createDirectories(dir.resolve(node.name));
        List<String> routes = nodes.stream().filter(n -> n != node).map(n -> "nats://127.0.0.1:" + n.clusterPort).toList();
        node.process = new ProcessBuilder(List.of(server.toString(),
                "-c", dir.resolve("limits.conf").toString(),
                "-n", node.name, "-a", "127.0.0.1", "-p", Integer.toString(node.clientPort),
                "-m", Integer.toString(node.monitorPort),
                "-js", "-sd", data.resolve("jetstream").toString(),
                "--cluster_name", CLUSTER_NAME, "--cluster", "nats://127.0.0.1:" + node.clusterPort,
                "--routes", String.join(",", routes)))
                .redirectErrorStream(true).redirectOutput(data.resolve("server.log").toFile()).start();
    }

    private void awaitUp(Node node, long deadline) throws IOException, InterruptedException {
        while (!RealServices.answers("127.0.0.1", node.clientPort)) {
            if (!node.process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("nats-server " + node.name + " did not come up on port " + node.clientPort + ": " + log(node));
            }
            Thread.sleep(20);
        }
    }

    /** Every node names the same meta leader: the cluster can create streams. */
    private void awaitMetaLeader(long deadline) throws InterruptedException, IOException {
        String last = "";
        while (System.nanoTime() < deadline) {
            List<String> leaders = new ArrayList<>();
            for (Node node : nodes) {
                last = monitor(node, "/jsz");
                Matcher m = META_LEADER.matcher(last);
                if (m.find()) {
                    leaders.add(m.group(1));
                }
            }
            if (leaders.size() == nodes.size() && leaders.stream().distinct().count() == 1) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the cluster elected no JetStream meta leader: " + last);
    }

    private static String monitor(Node node, String path) {
        try {
            HttpURLConnection http = (HttpURLConnection) URI.create("http://127.0.0.1:" + node.monitorPort + path).toURL().openConnection();
            http.setConnectTimeout(500);
            http.setReadTimeout(2000);
            try (InputStream in = http.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                http.disconnect();
            }
        } catch (IOException e) {
            return "";
        }
    }

    private String log(Node node) throws IOException {
        Path log = dir.resolve(node.name).resolve("server.log");
        return Files.exists(log) ? Files.readString(log) : "no log";
    }

    /** A free loopback port, held open until every port is chosen so that no two nodes get the same. */
    private static int reserve(List<ServerSocket> reserved) {
        try {
            ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            reserved.add(socket);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Only reserved the port.
        }
    }
}
