package dev.idem.demo.lab;

import io.lettuce.core.RedisURI;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} of the lab's own on a free loopback port, its data in a folder of the lab's,
 * started with the persistence flags a row gives it. {@link #crashAndRestart()} SIGKILLs it and starts
 * it again on the same port and folder: what the server kept on disk is all it has afterwards.
 */
final class PrivateRedis implements AutoCloseable {
    private static final Duration START = Duration.ofSeconds(20);

    private final List<String> command;
    private final Path log;
    private final int port;
    private Process process;

    private PrivateRedis(List<String> command, Path log, int port) {
        this.command = command;
        this.log = log;
        this.port = port;
    }

    /** The {@code redis-server} binary on the PATH or in the usual places. */
    static Optional<Path> binary() {
        Stream<Path> onPath = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, "redis-server"));
        return Stream.concat(onPath, Stream.of(Path.of("/usr/bin/redis-server"), Path.of("/usr/local/bin/redis-server")))
                .filter(Files::isExecutable).findFirst();
    }

    /**
     * Starts the server and returns once it answers {@code PING}.
     *
     * @param persistence flags such as {@code --appendonly no}
     */
    static PrivateRedis start(Path binary, Path dir, List<String> persistence, Path log) {
        int port = Ports.free();
        List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toAbsolutePath().toString(), "--daemonize", "no", "--logfile", ""));
        command.addAll(persistence);
        PrivateRedis redis = new PrivateRedis(List.copyOf(command), log, port);
        redis.launch();
        return redis;
    }

    RedisURI uri() {
        return RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(10)).build();
    }

    /** SIGKILL, then a start on the same port and folder; returns once the server has loaded its data and answers. */
    void crashAndRestart() {
        kill();
        launch();
    }

    private void launch() {
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "$ " + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            ChildProcess.killOnExit(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server", e);
        }
        long deadline = System.nanoTime() + START.toNanos();
        while (!pong()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-server did not answer PING on port " + port + "; see " + log);
            }
            ChildProcess.sleep(20);
        }
    }

    /** Whether the server answers PING with PONG (while it loads its files it answers LOADING). */
    private boolean pong() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            socket.setSoTimeout(1_000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] reply = new byte[7];
            InputStream in = socket.getInputStream();
            int read = in.read(reply);
            return read >= 5 && new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ChildProcess.stopped(process);
    }

    @Override
    public void close() {
        if (process != null) {
            kill();
        }
    }
}
