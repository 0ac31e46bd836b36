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
 * Runs the scenarios, prints the table and writes {@code report.html} and {@code report.json}.
 *
 * <p>Scenarios run grouped by server variant (fewer slow service starts) but are reported in table
 * order. Each gets a fresh fault proxy seeded from the lab's seed and the scenario's place in the
 * catalogue, so a scenario's faults do not depend on which others run with it.
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
        components.check(settings.scenarios().stream().anyMatch(Scenario::messaging));
        prepareFolders();
        Instant startedAt = Instant.now();
        long started = System.nanoTime();
        String runTag = Long.toString(startedAt.toEpochMilli(), 36);
        out.printf("idem lab: %d scenarios x %d payments, seed %d, %s%n", settings.scenarios().size(), settings.payments(),
                settings.seed(), settings.databaseLabel());

        List<Scenario> order = new ArrayList<>(settings.scenarios());
        order.sort(Comparator.comparing(Scenario::variant));
        Map<Scenario, ScenarioResult> results = new HashMap<>();
        try (Stack stack = new Stack(components, settings, progress::event)) {
            ScenarioRunner runner = new ScenarioRunner(stack, settings, progress, runTag);
            int number = 0;
            for (Scenario scenario : order) {
                progress.scenarioStarted(++number, order.size(), scenario);
                ScenarioResult result = runner.run(scenario, settings.seed() * 1_000 + Scenarios.all().indexOf(scenario));
                progress.scenarioFinished(result);
                results.put(scenario, result);
            }
        }
        List<ScenarioResult> inTableOrder = settings.scenarios().stream().map(results::get).toList();
        LabReport report = new LabReport(startedAt, (System.nanoTime() - started) / 1_000_000, settings, inTableOrder,
                ReplaySample.find(inTableOrder).orElse(null));
        out.println();
        out.print(TableRenderer.render(report));
        write(report);
        out.printf("%nreport: %s%n        %s%n", settings.out().resolve(HTML_FILE), settings.out().resolve(JSON_FILE));
        return report;
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
