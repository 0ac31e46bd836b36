package dev.idem.testing;

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
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one process) in a child JVM, for
 * tests and the demo lab. A log folder is formatted with {@code kafka.tools.StorageTool format}, then
 * {@code kafka.Kafka} runs with replication factors of 1, one partition per internal topic,
 * {@code group.initial.rebalance.delay.ms=0}, no automatic topic creation, few threads and a 512 MB
 * heap, on free ports of 127.0.0.1. {@link #start} returns once an admin client can describe the
 * cluster; {@link #close()} stops the broker and deletes its folder (a JVM shutdown hook does the
 * same if nobody closes it).
 *
 * <p>The broker's classes come from {@code org.apache.kafka:kafka_2.13} and its dependencies, on a
 * class path given to {@link #start(String)}, or for {@link #start()} read from the file named by the
 * system property {@value #CLASS_PATH_PROPERTY} (a Maven build writes it with
 * {@code dependency:build-classpath}). An SLF4J binding on that class path (slf4j-simple) gives the
 * broker a log, whose last lines are quoted if it does not come up.
 *
 * <p>This class needs {@code org.apache.kafka:kafka-clients}, an optional dependency of idem-testing:
 * declare it where you use the broker.
 */
public final class KafkaBroker implements AutoCloseable {
    /** The system property naming the file {@link #start()} reads the broker's class path from. */
    public static final String CLASS_PATH_PROPERTY = "idem.kafka.broker.classpath";

    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
    /** Kafka's rule for topic names. */
    private static final Pattern TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final Process process;
    private final Path dir;
    private final String bootstrapServers;
    private final Duration startTime;
    private final Thread shutdownHook;
    private volatile boolean closed;

    private KafkaBroker(Process process, Path dir, String bootstrapServers, Duration startTime) {
        this.process = process;
        this.dir = dir;
        this.bootstrapServers = bootstrapServers;
        this.startTime = startTime;
        this.shutdownHook = new Thread(this::stop, "idem-kafka-broker-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** {@code 127.0.0.1:<port>}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** How long {@link #start} took, formatting included. */
    public Duration startTime() {
        return startTime;
    }

    /**
     * {@link #start(String)} with the class path in the file that the system property
     * {@value #CLASS_PATH_PROPERTY} names, else this JVM's class path if it holds
     * {@code kafka_2.13}.
     *
     * @throws IllegalStateException if neither gives a class path, or the broker did not come up
     */
    public static KafkaBroker start() throws IOException, InterruptedException {
        return start(brokerClassPath());
    }

    /**
     * Formats a log folder in a new temporary folder and starts the broker on {@code brokerClassPath}
     * (entries separated by {@link File#pathSeparator}); returns once it answers, within 90 s.
     *
     * @throws IllegalArgumentException if the class path is blank
     * @throws IllegalStateException    with the broker's last output if it did not come up
     */
    public static KafkaBroker start(String brokerClassPath) throws IOException, InterruptedException {
        Objects.requireNonNull(brokerClassPath, "brokerClassPath is null");
        String classPath = brokerClassPath.trim();
        if (classPath.isEmpty()) {
            throw new IllegalArgumentException("the broker class path is empty; it must hold kafka_2.13 and its dependencies");
        }
        long began = System.nanoTime();
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
                } catch (ExecutionException | TimeoutException e) {
                    // Not up yet.
                }
                if (System.nanoTime() - deadline > 0) {
                    throw failure("it did not answer within " + READY_TIMEOUT, log, dir);
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * Creates {@code name} with {@code partitions} partitions (replication factor 1) and waits until
     * each has a leader. If the topic exists already with that many partitions, nothing changes: a
     * second call is harmless.
     *
     * @throws IllegalArgumentException if the name is not a Kafka topic name or {@code partitions} is below 1
     * @throws IllegalStateException    if the topic exists with another number of partitions, the
     *                                  broker is closed, or it did not answer within 30 s
     */
    public void createTopic(String name, int partitions) {
        Objects.requireNonNull(name, "name is null");
        if (!TOPIC_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("not a Kafka topic name (1-249 of a-z, A-Z, 0-9, '.', '_', '-'): '" + name + "'");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        if (closed) {
            throw new IllegalStateException("the broker is closed");
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_TIMEOUT.toMillis()))) {
            try {
                admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all()
                        .get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("could not create topic " + name + ": " + e.getCause(), e.getCause());
                }
            }
            awaitLeaders(admin, name, partitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the broker did not create topic " + name + " within " + ADMIN_TIMEOUT, e);
        }
    }

    /** Until every partition has a leader: a producer sending at once would otherwise wait for metadata. */
    private static void awaitLeaders(Admin admin, String name, int partitions) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
        while (true) {
            try {
                TopicDescription topic = admin.describeTopics(List.of(name)).allTopicNames().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS).get(name);
                if (topic.partitions().size() != partitions) {
                    throw new IllegalStateException("topic " + name + " exists with " + topic.partitions().size()
                            + " partitions, not " + partitions);
                }
                if (topic.partitions().stream().map(TopicPartitionInfo::leader).allMatch(leader -> leader != null && !leader.isEmpty())) {
                    return;
                }
            } catch (ExecutionException e) {
                // Metadata not there yet (UnknownTopicOrPartition): ask again.
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("no leader for every partition of " + name);
            }
            Thread.sleep(50);
        }
    }

    /** Null if a broker at {@code bootstrap} describes its cluster within 15 s, else why not. */
    public static String answers(String bootstrap) {
        Objects.requireNonNull(bootstrap, "bootstrap is null");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000))) {
            admin.describeCluster().nodes().get(15, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return String.valueOf(e.getCause());
        } catch (TimeoutException | RuntimeException e) {
            return String.valueOf(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** Stops the broker (SIGTERM, then kill after 20 s) and deletes its folder. */
    @Override
    public void close() {
        closed = true;
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
    private static String brokerClassPath() throws IOException {
        String file = System.getProperty(CLASS_PATH_PROPERTY);
        if (file != null && Files.isRegularFile(Path.of(file))) {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
        }
        String own = System.getProperty("java.class.path", "");
        if (!own.contains("kafka_2.13")) {
            throw new IllegalStateException("no broker class path: " + (file == null ? CLASS_PATH_PROPERTY + " is not set"
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
