package dev.idem.demo.lab;

import java.time.Instant;
import java.util.List;

/**
 * A whole lab run: its settings, one result per scenario and per pattern row in table order, and a
 * replay to draw.
 */
public record LabReport(Instant startedAt, long millis, LabSettings settings, List<ScenarioResult> results, ReplaySample sample,
                        List<PatternResult> patterns) {
    public LabReport {
        results = List.copyOf(results);
        patterns = List.copyOf(patterns);
    }

    /** A run of scenarios only. */
    public LabReport(Instant startedAt, long millis, LabSettings settings, List<ScenarioResult> results, ReplaySample sample) {
        this(startedAt, millis, settings, results, sample, List.of());
    }

    public boolean allAsExpected() {
        return results.stream().allMatch(ScenarioResult::asExpected) && patterns.stream().allMatch(PatternResult::asExpected);
    }

    /** The scenarios of one group: the HTTP rows (keys) or the messaging rows (inbox). */
    public List<ScenarioResult> results(Group group) {
        return results.stream().filter(r -> Catalogue.group(r.scenario()) == group).toList();
    }

    /** The pattern rows of one group. */
    public List<PatternResult> patterns(Group group) {
        return patterns.stream().filter(p -> p.row().group() == group).toList();
    }
}
