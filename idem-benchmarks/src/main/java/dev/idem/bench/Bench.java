package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code ./idem bench}: runs the parts asked for, side by side in one run, and prints one table; the
 * table and a JSON copy go under {@code data/bench/}.
 */
public final class Bench {
    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (Options.HelpRequested e) {
            System.out.println(Options.USAGE);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println("idem bench: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            System.exit(run(options));
        } catch (ScaleBench.NotEnoughDisk e) {
            System.err.println("idem bench: " + e.getMessage());
            System.exit(2);
        }
    }

    static int run(Options options) throws Exception {
        Files.createDirectories(options.out);
        Path work = Files.createTempDirectory(options.out, "work-");
        String loadBefore = loadAverage();
        long started = System.nanoTime();
        List<Row> rows = new ArrayList<>();
        String growthSamples = null;
        String pgVersion = "-";
        boolean needsPg = options.parts.stream().anyMatch(p -> !p.equals("store")) || options.backends.contains("postgresql");
        if (options.pgbench && !PgBench.available()) {
            progress("pgbench not found: the pgbench lines are left out (install postgresql-client, or set PGBENCH)");
        }
        Postgres pg = needsPg ? new Postgres(options.pgUrl) : null;
        // Interrupted (Ctrl-C): still drop the benchmark's database and remove its files.
        Thread cleanup = new Thread(() -> {
            try {
                if (pg != null) {
                    pg.close();
                }
                deleteTree(work);
            } catch (Exception e) {
                System.err.println("bench: cleanup failed: " + e);
            }
        }, "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            if (pg != null) {
                pgVersion = pg.serverVersion();
            }
            if (options.parts.contains("store")) {
                rows.addAll(new StoreBench(options, pg, work).run());
            }
            if (options.parts.contains("endpoint")) {
                rows.addAll(new EndpointBench(options, pg, work).run());
            }
            if (options.parts.contains("webflux")) {
                rows.addAll(new EndpointBench(options, pg, work).runWebFlux());
            }
            if (options.parts.contains("inbox")) {
                rows.addAll(new InboxBench(options, pg, work).run());
            }
            if (options.parts.contains("peers")) {
                rows.addAll(new PeerInboxBench(options, pg).run());
            }
            if (options.parts.contains("scale")) {
                rows.addAll(new ScaleBench(options, pg).run());
            }
            if (options.parts.contains("scale-inbox")) {
                rows.addAll(new InboxScaleBench(options, pg).run());
            }
            if (options.parts.contains("growth")) {
                GrowthBench growth = new GrowthBench(options, pg);
                rows.addAll(growth.run());
                growthSamples = growth.samplesText();
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to: it cleans up too
            }
            if (pg != null) {
                pg.close();
            }
            deleteTree(work);
        }
        String loadAfter = loadAverage();
        double minutes = (System.nanoTime() - started) / 6e10;
        String header = machine(pgVersion) + String.format(Locale.ROOT,
                "load average (1, 5, 15 min): before %s, after %s; run took %.1f min; window %s s, warm-up %s s per case%s%n",
                loadBefore, loadAfter, minutes, seconds(options.duration.toMillis()), seconds(options.warmup.toMillis()),
                options.label == null ? "" : "; " + options.label);
        String table = table(rows);
        String text = header + "\n" + table + (growthSamples == null ? "" : "\n" + growthSamples);
        System.out.println();
        System.out.print(text);
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
        Files.writeString(options.out.resolve("bench-" + stamp + ".txt"), text, StandardCharsets.UTF_8);
        Files.writeString(options.out.resolve("bench-" + stamp + ".json"), json(rows, header, growthSamples), StandardCharsets.UTF_8);
        Files.writeString(options.out.resolve("latest.txt"), text, StandardCharsets.UTF_8);
        System.out.println("\nwritten: " + options.out.resolve("bench-" + stamp + ".txt") + " and .json");
        return 0;
    }

    static String table(List<Row> rows) {
        String[] head = {"part", "case", "backend", "thr", "rate", "unit", "p50 ms", "p99 ms", "ratio", "vs", "note"};
        List<String[]> lines = new ArrayList<>();
        lines.add(head);
        for (Row r : rows) {
            Measured m = r.measured();
            boolean latency = m.p50Millis() > 0 || m.p99Millis() > 0;
            lines.add(new String[] {r.part(), r.name(), r.backend(), Integer.toString(r.threads()),
                    String.format(Locale.ROOT, "%,.0f", m.rate()), r.unit(),
                    latency ? String.format(Locale.ROOT, "%.2f", m.p50Millis()) : "-",
                    latency ? String.format(Locale.ROOT, "%.2f", m.p99Millis()) : "-",
                    Double.isNaN(r.ratio()) ? "" : String.format(Locale.ROOT, "%.2f", r.ratio()),
                    r.ratioTo() == null ? "" : r.ratioTo(),
                    (r.note() == null ? "" : r.note()) + (m.errors() > 0 ? " (" + m.errors() + " errors)" : "")});
        }
        int[] width = new int[head.length];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                width[i] = Math.max(width[i], l[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] l : lines) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < l.length; i++) {
                boolean right = i == 3 || (i >= 4 && i <= 8 && i != 5);
                String cell = right ? " ".repeat(width[i] - l[i].length()) + l[i] : l[i] + " ".repeat(width[i] - l[i].length());
                line.append(i == 0 ? "" : "  ").append(cell);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    static String machine(String pgVersion) {
        String cpu = "?";
        long memKb = 0;
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    cpu = l.substring(l.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemTotal:")) {
                    memKb = Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return String.format(Locale.ROOT, "machine: %d cores (nproc), %s, %.1f GiB RAM; PostgreSQL %s; Java %s%n",
                Runtime.getRuntime().availableProcessors(), cpu, memKb / 1048576.0, pgVersion, System.getProperty("java.version"));
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : String.format(Locale.ROOT, "%.1f", millis / 1000.0);
    }

    static String json(List<Row> rows, String header, String growth) {
        StringBuilder out = new StringBuilder("{\n  \"header\": ").append(quote(header)).append(",\n  \"rows\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            Measured m = r.measured();
            out.append(String.format(Locale.ROOT,
                    "    {\"part\": %s, \"case\": %s, \"backend\": %s, \"threads\": %d, \"rate\": %.1f, \"unit\": %s, \"ops\": %d,"
                            + " \"seconds\": %.3f, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"errors\": %d, \"ratio\": %s, \"vs\": %s, \"note\": %s}%s%n",
                    quote(r.part()), quote(r.name()), quote(r.backend()), r.threads(), m.rate(), quote(r.unit()), m.ops(), m.seconds(),
                    m.p50Millis(), m.p99Millis(), m.errors(), Double.isNaN(r.ratio()) ? "null" : String.format(Locale.ROOT, "%.4f", r.ratio()),
                    r.ratioTo() == null ? "null" : quote(r.ratioTo()), r.note() == null ? "null" : quote(r.note()),
                    i + 1 < rows.size() ? "," : ""));
        }
        out.append("  ],\n  \"growth_samples\": ").append(growth == null ? "null" : quote(growth)).append("\n}\n");
        return out.toString();
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    static void progress(String message) {
        System.err.println("bench: " + message);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
