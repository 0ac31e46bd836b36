package dev.idem.demo.lab;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the scenarios, then the pattern rows, prints the tables and writes {@code report.html} and
 * {@code report.json}.
 *
 * <p>Scenarios run grouped by server variant (fewer slow service starts) but are reported in table
 * order. Each gets a fresh fault proxy seeded from the lab's seed and the scenario's place in the
 * catalogue, so a scenario's faults do not depend on which others run with it; a pattern row's seed
 * comes from its place in {@link Patterns} the same way. The pattern rows run on the same stack, so
 * the Kafka rows reuse a broker the messaging scenarios started.
 */
public final class Lab {
    public static final String HTML_FILE = "report.html";
    public static final String JSON_FILE = "report.json";

    private final LabSettings settings;
    private final Components components;
    private final PrintStream out;
    private final Progress progress;

    public Lab(LabSettings settings, Components components, PrintStream out) {
        this(settings, components, out, Progress.forConsole(out));
    }

    Lab(LabSettings settings, Components components, PrintStream out, Progress progress) {
        this.settings = settings;
        this.components = components;
        this.out = out;
        this.progress = progress;
    }

    public LabReport run() throws InterruptedException {
        components.check(!settings.scenarios().isEmpty(), settings.scenarios().stream().anyMatch(Scenario::messaging),
                settings.patterns().stream().anyMatch(p -> p.needs() == PatternRow.Needs.KAFKA));
        prepareFolders();
        Instant startedAt = Instant.now();
        long started = System.nanoTime();
        String runTag = Long.toString(startedAt.toEpochMilli(), 36);
        out.printf("idem lab: %d scenarios x %d payments, %d pattern rows, seed %d, %s%n", settings.scenarios().size(), settings.payments(),
                settings.patterns().size(), settings.seed(), settings.databaseLabel());

        List<Scenario> order = new ArrayList<>(settings.scenarios());
        order.sort(Comparator.comparing(Scenario::variant));
        int total = order.size() + settings.patterns().size();
        Map<Scenario, ScenarioResult> results = new HashMap<>();
        List<PatternResult> patterns = new ArrayList<>();
        try (Stack stack = new Stack(components, settings, progress::event)) {
            ScenarioRunner runner = new ScenarioRunner(stack, settings, progress, runTag);
            int number = 0;
            for (Scenario scenario : order) {
                progress.scenarioStarted(++number, total, scenario);
                ScenarioResult result = runner.run(scenario, settings.seed() * 1_000 + Scenarios.all().indexOf(scenario));
                progress.scenarioFinished(result);
                results.put(scenario, result);
            }
            for (PatternRow row : settings.patterns()) {
                progress.rowStarted(++number, total, row);
                PatternResult result = runRow(row, new RowContext(settings, stack, progress, runTag,
                        settings.seed() * 1_000 + 500 + Patterns.all().indexOf(row)));
                progress.rowFinished(result);
                patterns.add(result);
            }
        }
        List<ScenarioResult> inTableOrder = settings.scenarios().stream().map(results::get).toList();
        LabReport report = new LabReport(startedAt, (System.nanoTime() - started) / 1_000_000, settings, inTableOrder,
                ReplaySample.find(inTableOrder).orElse(null), patterns);
        out.println();
        out.print(TableRenderer.render(report));
        write(report);
        out.printf("%nreport: %s%n        %s%n", settings.out().resolve(HTML_FILE), settings.out().resolve(JSON_FILE));
        return report;
    }

    /**
     * One pattern row. A row that breaks (a server that died, a timeout) is reported as failed with
     * its reason, and the lab goes on with the next.
     */
    private static PatternResult runRow(PatternRow row, RowContext context) throws InterruptedException {
        long started = System.nanoTime();
        try {
            return row.runner().run(row, context);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return PatternResult.failed(row, e.getClass().getSimpleName() + ": " + e.getMessage(), (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** The lab owns its work and log folders under {@code out}: every run starts them empty. */
    private void prepareFolders() {
        try {
            Files.createDirectories(settings.out());
            deleteTree(settings.workDir());
            deleteTree(settings.logDir());
            Files.createDirectories(settings.workDir());
            Files.createDirectories(settings.logDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + settings.out(), e);
        }
    }

    private void write(LabReport report) {
        try {
            Files.writeString(settings.out().resolve(HTML_FILE), HtmlReport.render(report), StandardCharsets.UTF_8);
            Files.writeString(settings.out().resolve(JSON_FILE), JsonReport.render(report), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report under " + settings.out(), e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
