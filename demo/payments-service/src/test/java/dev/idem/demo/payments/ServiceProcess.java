package dev.idem.demo.payments;

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

/**
 * The packaged payments service ({@code target/payments-service.jar}) in its own JVM, with the JVM
 * options the lab uses. Its output goes to a log file; a start waits for {@code GET /actuator/health}.
 */
final class ServiceProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();

    private final Process process;
    private final int port;
    private final Path log;

    private ServiceProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The jar the build packaged (failsafe passes its path; the module folder is the fallback). */
    static Path jar() {
        Path jar = Path.of(System.getProperty("payments.jar", "target/payments-service.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the packaged service is missing at " + jar.toAbsolutePath()
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

    /** Starts the service on {@code port} with these extra flags and waits until it is ready. */
    static ServiceProcess start(int port, String gatewayUrl, Path dataDir, Path log, String... flags) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar().toAbsolutePath().toString(),
                "--server.port=" + port, "--gateway.url=" + gatewayUrl, "--data-dir=" + dataDir.toAbsolutePath()));
        command.addAll(List.of(flags));
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            process.getOutputStream().close();
            ServiceProcess service = new ServiceProcess(process, port, log);
            service.awaitReady();
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the payments service", e);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        HttpRequest health = HttpRequest.newBuilder(URI.create(baseUrl() + "/actuator/health")).timeout(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the payments service exited with " + process.exitValue() + " before it was ready:\n" + tail());
            }
            try {
                if (HTTP.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            sleep(50);
        }
        process.destroyForcibly();
        throw new IllegalStateException("the payments service was not ready within " + START_TIMEOUT.toSeconds() + " s:\n" + tail());
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    /** Waits for the process to end by itself; its exit status, or -1 if it still runs after {@code timeout}. */
    int awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
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
        }
    }
}
