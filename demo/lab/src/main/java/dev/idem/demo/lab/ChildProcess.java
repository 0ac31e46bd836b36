package dev.idem.demo.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A program the lab started. Its output goes to a log file. Every child still running when the lab's
 * JVM exits is killed, so an interrupted lab leaves no servers behind.
 */
final class ChildProcess {
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "lab-children"));
    }

    private final String name;
    private final Process process;
    private final Path log;

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Kills {@code process} too if the lab's JVM exits while it runs; for a program the lab starts itself (a redis-server). */
    static void killOnExit(Process process) {
        RUNNING.add(process);
    }

    /** The lab stopped {@code process} itself. */
    static void stopped(Process process) {
        RUNNING.remove(process);
    }

    static ChildProcess start(JavaApp app, List<String> args, Path log) {
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "$ " + String.join(" ", app.command(args)) + System.lineSeparator(), StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            Process process = new ProcessBuilder(app.command(args))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            process.getOutputStream().close();
            RUNNING.add(process);
            return new ChildProcess(app.name(), process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the " + app.name(), e);
        }
    }

    /** Polls {@code GET path} until it answers 200. */
    void awaitReady(int port, String path, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the " + name + " exited with " + process.exitValue() + " before it was ready; see " + log
                        + lastLines());
            }
            LabHttp.Result result = LabHttp.get(port, path, Duration.ofSeconds(2));
            if (result.response() != null && result.response().status() == 200) {
                return;
            }
            sleep(25);
        }
        throw new IllegalStateException("the " + name + " was not ready on port " + port + " within " + timeout.toSeconds() + " s; see " + log
                + lastLines());
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye. */
    void kill() {
        process.destroyForcibly();
        waitFor(10);
        RUNNING.remove(process);
    }

    /** SIGTERM, then SIGKILL if it has not exited within 10 s. */
    void stop() {
        process.destroy();
        if (!waitFor(10)) {
            process.destroyForcibly();
            waitFor(10);
        }
        RUNNING.remove(process);
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The exit code; only once the process has exited. */
    int exitCode() {
        return process.exitValue();
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    private boolean waitFor(int seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private String lastLines() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> tail = lines.subList(Math.max(0, lines.size() - 15), lines.size());
            return tail.isEmpty() ? "" : System.lineSeparator() + "  | " + String.join(System.lineSeparator() + "  | ", tail);
        } catch (IOException | UncheckedIOException e) {
            return "";
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
