package dev.idem.bench;

import dev.idem.testing.RealServices;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The one-master side of the Redis store benchmark: a private {@code redis-server} on a free loopback
 * port and one replica of it, both persisting as idem-testing's cluster nodes do ({@code appendonly
 * yes}, {@code appendfsync everysec}, no RDB snapshots). The replica is there so that one master and
 * three are compared on equal terms: in both, every write is applied by a replica too, which keeps its
 * own append-only file. Data lives under the benchmark's work folder; {@link #close()} stops both.
 */
final class StandaloneRedis implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private int masterPort;
    private RedisClient admin;
    private StatefulRedisConnection<String, String> adminConnection;

    private StandaloneRedis(Path dir) {
        this.dir = dir;
    }

    /** Starts the master and its replica; returns once the replica is in sync. */
    static StandaloneRedis start(Path server, Path work) throws IOException, InterruptedException {
        StandaloneRedis redis = new StandaloneRedis(Files.createTempDirectory(work, "redis-"));
        try {
            redis.masterPort = freePort();
            redis.startNode(server, redis.masterPort, List.of());
            int replicaPort = freePort();
            redis.startNode(server, replicaPort, List.of("--replicaof", "127.0.0.1", Integer.toString(redis.masterPort)));
            redis.admin = RedisClient.create(redis.uri());
            redis.adminConnection = redis.admin.connect();
            redis.awaitReplica();
            return redis;
        } catch (IOException | InterruptedException | RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /** {@code redis-server} or {@code redis-cli} where idem-testing's cluster looks for it: the PATH, /usr/bin, /usr/local/bin. */
    static Optional<Path> binary(String name) {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        for (String folder : path == null ? new String[0] : path.split(File.pathSeparator)) {
            if (!folder.isBlank()) {
                candidates.add(Path.of(folder, name));
            }
        }
        candidates.add(Path.of("/usr/bin", name));
        candidates.add(Path.of("/usr/local/bin", name));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    RedisURI uri() {
        return RedisURI.create("redis://127.0.0.1:" + masterPort);
    }

    /** The master's and the replica's ports. */
    List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** The server processes (master, replica), for their CPU time. */
    List<Long> pids() {
        return processes.stream().map(Process::pid).toList();
    }

    /** What the master says it is, e.g. {@code 7.0.15}. */
    String version() {
        for (String line : adminConnection.sync().info("server").split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "?";
    }


    private void startNode(Path server, int port, List<String> extra) throws IOException, InterruptedException {
        Path data = Files.createDirectories(dir.resolve(Integer.toString(port)));
        List<String> command = new ArrayList<>(List.of(server.toString(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--daemonize", "no",
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                // The replica's first sync starts at once, not after the default 5 s wait for more replicas.
                "--repl-diskless-sync-delay", "0",
                "--dir", data.toString(), "--logfile", data.resolve("redis.log").toString()));
        command.addAll(extra);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(data.resolve("stdout.log").toFile()).start();
        processes.add(process);
        ports.add(port);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!RealServices.answers("127.0.0.1", port)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                Path log = data.resolve("redis.log");
                throw new IllegalStateException("redis-server did not come up on port " + port + ": "
                        + (Files.exists(log) ? Files.readString(log) : "no log"));
            }
            Thread.sleep(20);
        }
    }

    private void awaitReplica() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String info = "";
        while (System.nanoTime() < deadline) {
            info = adminConnection.sync().info("replication");
            if (info.contains("connected_slaves:1") && info.contains("state=online")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the replica did not get in sync with the master on port " + masterPort + ": " + info);
    }

    /** A port nothing listens on now (the server binds it a moment later). */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (adminConnection != null) {
            adminConnection.close();
        }
        if (admin != null) {
            admin.shutdown(0, 2, TimeUnit.SECONDS);
        }
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        try {
            Bench.deleteTree(dir);
        } catch (IOException e) {
            // The work folder is deleted at the end of the run anyway.
        }
    }
}
