package dev.idem.kafka;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one process) in a child JVM, from
 * {@code org.apache.kafka:kafka_2.13} on the class path Maven wrote to
 * {@code target/kafka-broker.classpath} (else this JVM's class path). Started once per test run by
 * {@link RealKafka}: a log folder is formatted with {@code kafka.tools.StorageTool format}, then
 * {@code kafka.Kafka} runs with replication factors of 1, one partition per internal topic,
 * {@code group.initial.rebalance.delay.ms=0}, few threads and a 512 MB heap, on free ports of
 * 127.0.0.1. Ready when an admin client can describe the cluster.
 */
final class KafkaBroker implements AutoCloseable {
    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path dir;
    private final String bootstrapServers;
    private final Duration startTime;
    private final Thread shutdownHook;

    private KafkaBroker(Process process, Path dir, String bootstrapServers, Duration startTime) {
        this.process = process;
        this.dir = dir;
        this.bootstrapServers = bootstrapServers;
        this.startTime = startTime;
        this.shutdownHook = new Thread(this::stop, "idem-kafka-broker-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    Duration startTime() {
        return startTime;
    }

    /**
     * Formats a log folder and starts the broker; returns once it answers.
     *
     * @throws IllegalStateException with the broker's last output if it did not come up
     */
    static KafkaBroker start() throws IOException, InterruptedException {
        long began = System.nanoTime();
        String classPath = brokerClassPath();
        Path dir = Files.createTempDirectory("idem-kafka-broker-");
        int port = freePort();
        int controllerPort = freePort();
        Path props = dir.resolve("server.properties");
        Files.writeString(props, String.join("\n", List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=1",
                "default.replication.factor=1",
                "min.insync.replicas=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                "num.network.threads=2",
                "num.io.threads=2",
                "num.replica.fetchers=1",
                "num.recovery.threads.per.data.dir=1",
                "background.threads=2",
                "log.cleaner.threads=1",
                "log.cleaner.dedupe.buffer.size=2097152")) + "\n");

        String clusterId = Uuid.randomUuid().toString();
        Path formatLog = dir.resolve("format.log");
        Process format = java(classPath, List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", props.toString()), dir, formatLog);
        if (!format.waitFor(FORMAT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            format.destroyForcibly();
            throw failure("formatting its log folder took longer than " + FORMAT_TIMEOUT, formatLog, dir);
        }
        if (format.exitValue() != 0) {
            throw failure("formatting its log folder failed with exit code " + format.exitValue(), formatLog, dir);
        }

        Path brokerLog = dir.resolve("broker.out");
        Process broker = java(classPath, List.of("kafka.Kafka", props.toString()), dir, brokerLog);
        String bootstrap = "127.0.0.1:" + port;
        try {
            awaitReady(broker, bootstrap, brokerLog, dir);
        } catch (RuntimeException | InterruptedException e) {
            broker.destroyForcibly();
            throw e;
        }
        return new KafkaBroker(broker, dir, bootstrap, Duration.ofNanos(System.nanoTime() - began));
    }

    private static void awaitReady(Process broker, String bootstrap, Path log, Path dir) throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000))) {
            while (true) {
                if (!broker.isAlive()) {
                    throw failure("it exited with code " + broker.exitValue() + " while starting", log, dir);
                }
                try {
                    if (!admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    // Not up yet.
                }
                if (System.nanoTime() - deadline > 0) {
                    throw failure("it did not answer within " + READY_TIMEOUT, log, dir);
                }
                Thread.sleep(200);
            }
        }
    }

    /** Null if a broker at {@code bootstrap} describes its cluster within 15 s, else why not. */
    static String answers(String bootstrap) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000))) {
            admin.describeCluster().nodes().get(15, TimeUnit.SECONDS);
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            return String.valueOf(e.getCause());
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            return String.valueOf(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** Stops the broker (SIGTERM, then kill after 20 s) and deletes its folder. */
    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down; the hook runs stop() again, which is harmless.
        }
    }

    private synchronized void stop() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        deleteTree(dir);
    }

    private static Process java(String classPath, List<String> mainAndArgs, Path dir, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms128m");
        command.add("-Xmx512m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Djava.awt.headless=true");
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
        command.add("-Dorg.slf4j.simpleLogger.logFile=" + log);
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        // The class path goes in an argument file: it is long.
        Path argFile = Files.createTempFile(dir, "classpath-", ".args");
        Files.writeString(argFile, "-cp \"" + classPath.replace("\\", "\\\\") + "\"\n");
        command.add("@" + argFile);
        command.addAll(mainAndArgs);
        return new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    /** The class path Maven wrote for the broker (see the pom), else this JVM's. */
    static String brokerClassPath() throws IOException {
        String file = System.getProperty("idem.kafka.broker.classpath");
        if (file != null && Files.isRegularFile(Path.of(file))) {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
        }
        String own = System.getProperty("java.class.path", "");
        if (!own.contains("kafka_2.13")) {
            throw new IllegalStateException("no broker class path: " + (file == null ? "idem.kafka.broker.classpath is not set"
                    : file + " is missing (run the tests through Maven)") + ", and kafka_2.13 is not on this JVM's class path");
        }
        return own;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    private static IllegalStateException failure(String what, Path log, Path dir) {
        String tail = tail(log, 40);
        deleteTree(dir);
        return new IllegalStateException("the Kafka broker did not start: " + what + (tail.isEmpty() ? "" : "; its last output:\n" + tail));
    }

    private static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | UncheckedIOException e) {
            // A temporary folder left behind is harmless.
        }
    }
}
