package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Runs PostgreSQL's own {@code pgbench} on a script and reads its per-transaction log. */
final class PgBench {
    static final String BINARY = findBinary();

    private PgBench() {
    }

    static boolean available() {
        return BINARY != null;
    }

    private static String findBinary() {
        String configured = System.getenv("PGBENCH");
        if (configured != null && !configured.isBlank() && Files.isExecutable(Path.of(configured))) {
            return configured;
        }
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                candidates.add(Path.of(dir, "pgbench"));
            }
        }
        candidates.add(Path.of("/usr/bin/pgbench"));
        try (Stream<Path> versions = Files.exists(Path.of("/usr/lib/postgresql")) ? Files.list(Path.of("/usr/lib/postgresql")) : Stream.empty()) {
            versions.sorted().forEach(v -> candidates.add(v.resolve("bin/pgbench")));
        } catch (IOException e) {
            // no versioned installs
        }
        for (Path p : candidates) {
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /**
     * Replaces each {@code ?} of a JDBC statement, in order, by a pgbench variable: the same statement text
     * with {@code :name} where JDBC binds a parameter; with {@code -M prepared} pgbench sends it as a
     * prepared statement with the same parameters.
     */
    static String bind(String sql, String... variables) {
        StringBuilder out = new StringBuilder();
        int next = 0;
        boolean quoted = false;
        for (int i = 0; i < sql.length(); i++) {
            char ch = sql.charAt(i);
            if (ch == '\'') {
                quoted = !quoted;
            }
            if (ch == '?' && !quoted) {
                if (next >= variables.length) {
                    throw new IllegalArgumentException("statement has more parameters than the " + variables.length + " variables given");
                }
                out.append(':').append(variables[next++]);
            } else {
                out.append(ch);
            }
        }
        if (next != variables.length) {
            throw new IllegalArgumentException("statement has " + next + " parameters, " + variables.length + " variables given");
        }
        return out.toString();
    }

    /**
     * Runs {@code script} with {@code clients} clients for the warm-up (not logged) and then the window
     * (logged), prepared statements, no vacuum; {@code -D} variables from {@code defines}.
     */
    static Measured run(Postgres pg, String script, int clients, Duration warmup, Duration window, Map<String, String> defines,
                        Path workDir) throws IOException, InterruptedException {
        return run(pg, script, clients, warmup, window, defines, workDir, new ArrayList<>());
    }

    /** As above, adding the transactions' latencies to {@code latencies} (a line measured in rounds merges them). */
    static Measured run(Postgres pg, String script, int clients, Duration warmup, Duration window, Map<String, String> defines,
                        Path workDir, List<Latencies> latencies) throws IOException, InterruptedException {
        if (!available()) {
            throw new IllegalStateException("pgbench not found (PATH, /usr/bin, /usr/lib/postgresql/*/bin); install postgresql-client or set PGBENCH");
        }
        Files.createDirectories(workDir);
        Path file = Files.createTempFile(workDir, "script-", ".sql");
        Files.writeString(file, script, StandardCharsets.UTF_8);
        Path logDir = Files.createTempDirectory(workDir, "log-");
        window = Duration.ofSeconds(Math.max(1, Math.round(window.toMillis() / 1000.0)));
        try {
            exec(pg, file, clients, warmup, defines, null);
            exec(pg, file, clients, window, defines, logDir.resolve("pgbench_log"));
            return readLogs(logDir, window, latencies);
        } finally {
            Files.deleteIfExists(file);
            try (Stream<Path> logs = Files.list(logDir)) {
                for (Path p : (Iterable<Path>) logs::iterator) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(logDir);
        }
    }

    private static void exec(Postgres pg, Path script, int clients, Duration time, Map<String, String> defines, Path logPrefix)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(BINARY, "-n", "-M", "prepared",
                "-h", pg.host, "-p", Integer.toString(pg.port), "-U", pg.user,
                "-c", Integer.toString(clients), "-j", Integer.toString(Math.min(clients, Runtime.getRuntime().availableProcessors())),
                "-T", Long.toString(Math.max(1, Math.round(time.toMillis() / 1000.0))),
                "-f", script.toString()));
        for (Map.Entry<String, String> d : defines.entrySet()) {
            cmd.add("-D");
            cmd.add(d.getKey() + "=" + d.getValue());
        }
        if (logPrefix != null) {
            cmd.add("-l");
            cmd.add("--log-prefix=" + logPrefix);
        }
        cmd.add(pg.database);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (pg.password != null) {
            pb.environment().put("PGPASSWORD", pg.password);
        }
        Process p = pb.start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(time.toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("pgbench did not finish");
        }
        String text = new String(output, StandardCharsets.UTF_8);
        if (p.exitValue() != 0 || text.contains("aborted")) {
            throw new IllegalStateException("pgbench failed (exit " + p.exitValue() + "):\n" + text);
        }
    }

    /** Lines: client_id transaction_no time_us script_no epoch epoch_us; the third is the transaction's latency. */
    private static Measured readLogs(Path logDir, Duration window, List<Latencies> latencies) throws IOException {
        List<Long> all = new ArrayList<>();
        try (Stream<Path> logs = Files.list(logDir)) {
            for (Path log : (Iterable<Path>) logs::iterator) {
                for (String line : Files.readAllLines(log, StandardCharsets.US_ASCII)) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length >= 3 && !f[2].equals("failed") && !f[2].equals("skipped")) {
                        all.add(Long.parseLong(f[2]) * 1000);
                    }
                }
            }
        }
        long[] nanos = all.stream().mapToLong(Long::longValue).toArray();
        Latencies recorded = new Latencies();
        for (long n : nanos) {
            recorded.add(n);
        }
        latencies.add(recorded);
        double[] p = Latencies.percentilesOf(nanos);
        return new Measured(nanos.length, window.toNanos() / 1e9, p[0], p[1], 0, 1);
    }
}
