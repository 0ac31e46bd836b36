package dev.idem.spring;

import dev.idem.spring.app.OrdersApplication;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * {@link OrdersApplication} in a child JVM (-Xmx256m), so a test can kill it like a crash: SIGKILL,
 * no shutdown hooks, no flushing. Its output goes to a log file in {@code dir}; its port comes back
 * through a file it writes once the server listens.
 */
final class ChildApp implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path log;

    private ChildApp(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    static ChildApp start(Path dir, String jdbcUrl, Path effectsFile) throws IOException, InterruptedException {
        return start(dir, jdbcUrl, effectsFile, System.getProperty("java.class.path"));
    }

    /** As {@link #start(Path, String, Path)}, on {@code classPath} instead of the test's own. */
    static ChildApp start(Path dir, String jdbcUrl, Path effectsFile, String classPath) throws IOException, InterruptedException {
        String name = UUID.randomUUID().toString().substring(0, 8);
        Path portFile = dir.resolve("port-" + name);
        Path log = dir.resolve("app-" + name + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp", classPath,
                OrdersApplication.class.getName(),
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--spring.datasource.url=" + jdbcUrl,
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN",
                "--orders.effects-file=" + effectsFile,
                "--orders.port-file=" + portFile));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (!Files.exists(portFile)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the application exited with " + process.exitValue() + " before listening:\n" + tail(log));
            }
            if (Instant.now().isAfter(deadline)) {
                process.destroyForcibly();
                throw new IllegalStateException("the application did not listen within 90 s:\n" + tail(log));
            }
            Thread.sleep(20);
        }
        int port = Integer.parseInt(Files.readString(portFile, StandardCharsets.US_ASCII).trim());
        return new ChildApp(process, port, log);
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** SIGKILL: the process ends at once, mid-whatever, as in a crash or an OOM kill. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public String toString() {
        return "OrdersApplication pid " + process.pid() + " on port " + port + " (log " + log + ")";
    }
}
