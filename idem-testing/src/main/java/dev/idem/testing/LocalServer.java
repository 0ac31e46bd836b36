package dev.idem.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The chores of running a database server of our own on loopback: the binary, a free port, a
 * folder the server's OS user owns, its commands run as that user (database servers refuse to run
 * as root, and tests run as root in CI), and a kill of a process with its children.
 */
final class LocalServer {
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    private LocalServer() {
    }

    /** The first of {@code candidates} that is executable. */
    static Optional<Path> binary(String... candidates) {
        return Stream.of(candidates).map(Path::of).filter(Files::isExecutable).findFirst();
    }

    /** A fresh temporary folder that {@code user} owns when we run as root (else ours). */
    static Path folder(String prefix, String user) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            if (ROOT) {
                UserPrincipalLookupService lookup = dir.getFileSystem().getUserPrincipalLookupService();
                Files.setOwner(dir, lookup.lookupPrincipalByName(user));
                GroupPrincipal group = lookup.lookupPrincipalByGroupName(user);
                Files.getFileAttributeView(dir, PosixFileAttributeView.class).setGroup(group);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a folder for a server's data", e);
        }
    }

    /** {@code command} as {@code user} when we run as root, with its output (both streams) in {@code log}. */
    static ProcessBuilder as(String user, Path log, String... command) {
        List<String> full = new ArrayList<>();
        if (ROOT) {
            full.addAll(List.of("runuser", "-u", user, "--"));
        }
        full.addAll(List.of(command));
        return new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    }

    /** Runs {@code command} as {@code user} to its end; a failure shows the end of its output. */
    static void run(String user, Path log, long timeoutSeconds, String... command) {
        try {
            Process process = as(user, log, command).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s:\n" + tail(log));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + process.exitValue() + ":\n" + tail(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command[0], e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command[0], e);
        }
    }

    /** The last 3,000 characters of {@code log}. */
    static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return text.substring(Math.max(0, text.length() - 3000));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** A loopback port nothing listens on now, from the system's ephemeral range. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** SIGKILL to {@code pid} and every process under it, children first listed so none escapes. */
    static void killTree(long pid) {
        ProcessHandle.of(pid).ifPresent(process -> {
            List<ProcessHandle> children = process.descendants().toList();
            process.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            process.onExit().join();
        });
    }

    /** The process id in the first line of {@code pidFile}. */
    static long pid(Path pidFile) {
        try {
            return Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("no process id in " + pidFile, e);
        }
    }

    static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // A temporary folder left behind is harmless.
        }
    }
}
