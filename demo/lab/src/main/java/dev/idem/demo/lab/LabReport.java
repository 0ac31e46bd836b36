package dev.idem.demo.lab;

import java.time.Instant;
import java.util.List;

/** A whole lab run: its settings, one result per scenario in table order, and a replay to draw. */
public record LabReport(Instant startedAt, long millis, LabSettings settings, List<ScenarioResult> results, ReplaySample sample) {
    public boolean allAsExpected() {
        return results.stream().allMatch(ScenarioResult::asExpected);
    }
}
