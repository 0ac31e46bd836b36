package dev.idem.demo.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The packaged consumer ({@code target/ledger-consumer.jar}) in its own JVM, as the lab runs it;
 * stdout and stderr go to a log file. A crash must really end a JVM, hence a process, not a thread.
 */
final class LedgerProcess implements AutoCloseable {
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final int port;
    private final Path log;

    private LedgerProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The jar the build packaged (failsafe passes its path). */
    static Path jar() {
        Path jar = Path.of(System.getProperty("ledger.jar", "target/ledger-consumer.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the packaged consumer is missing at " + jar.toAbsolutePath()
                    + "; these tests run after 'package' (mvn verify)");
        }
        return jar;
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts {@code java -jar ledger-consumer.jar --port <port> <args>}; returns at once. */
    static LedgerProcess start(int port, Path log, List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar().toAbsolutePath().toString(),
                "--port", Integer.toString(port)));
        command.addAll(args);
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardCharsets.UTF_8);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            process.getOutputStream().close();
            return new LedgerProcess(process, port, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the ledger consumer", e);
        }
    }

    /** {@link #start} and wait until {@code GET /health} answers 200. */
    static LedgerProcess startUp(int port, Path log, List<String> args) {
        LedgerProcess consumer = start(port, log, args);
        try {
            consumer.awaitUp();
            return consumer;
        } catch (RuntimeException | Error e) {
            consumer.close();
            throw e;
        }
    }

    void awaitUp() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the consumer exited with " + process.exitValue() + " before it was up:\n" + output());
            }
            try {
                if (get("/health").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            sleep(100);
        }
        throw new IllegalStateException("the consumer was not up within " + READY_TIMEOUT.toSeconds() + " s:\n" + output());
    }

    HttpResponse<String> get(String path) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(15)).build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    JsonNode json(String path) throws IOException {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** Waits until {@code GET /lag} says 0: every record of the topic is committed by the group. */
    void awaitNoLag(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long lag = -1;
        while (System.nanoTime() < deadline) {
            lag = json("/lag").get("lag").longValue();
            if (lag == 0) {
                return;
            }
            sleep(100);
        }
        throw new IllegalStateException("the lag was still " + lag + " after " + timeout.toSeconds() + " s:\n" + output());
    }

    /** The exit status once the process ended by itself within {@code timeout}; fails if it still runs. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the consumer still runs after " + timeout.toSeconds() + " s:\n" + output());
        }
        return process.exitValue();
    }

    /** SIGTERM, then the exit status (an orderly shutdown). */
    int stop() throws InterruptedException {
        process.destroy();
        return awaitExit(Duration.ofSeconds(30));
    }

    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
