package dev.idem.demo.lab;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A report with every scenario and every pattern row of the catalogue, with figures in the shape a
 * real run gives (taken from a run on SQLite), to check the lab's output layout without running the
 * lab: the terminal's width here, the HTML page's in a browser (idem-docs' LabReportInBrowserTest).
 */
public final class FixtureReports {
    private FixtureReports() {
    }

    /** The report as the lab's terminal prints it. */
    public static String text() {
        return TableRenderer.render(full());
    }

    /** The report as the lab's HTML page. */
    public static String html() {
        return HtmlReport.render(full());
    }

    static LabReport full() {
        List<ScenarioResult> results = new ArrayList<>();
        int n = 0;
        for (Scenario scenario : Scenarios.all()) {
            n++;
            boolean expired = scenario.expectation() == Expectation.ANSWERS_EXPIRED;
            boolean failing = scenario.expectation() != Expectation.EXACTLY_ONCE && !expired;
            Figures figures = new Figures(40, 40 + 7 * n, failing ? 52 : 40, scenario.id().equals("at-most-once") ? 7 : 0, failing ? 8 + n : 0,
                    scenario.id().equals("at-most-once") ? 9 : 0, 0, 0, expired ? 40 : 0, 18.8 + n, 120 + 30 * n,
                    Map.of("0", 0, "1", failing ? 30 : 40, "2", failing ? 8 : 0, "3+", failing ? 2 : 0));
            List<PaymentRecord> records = new ArrayList<>();
            List<LedgerCharge> charges = new ArrayList<>();
            if (scenario.id().equals("idem-lossy")) {
                PaymentRecord record = new PaymentRecord(new Payment("idem-lossy-007", 4_250, "EUR", "card-idem-lossy-007"));
                record.add(new Attempt(0, 1, "3f9a1c2e-7b4d-4c55-9a0e-1d2f3a4b5c6d", 120, 2_000_000, true, 0, "connection reset", false, null));
                record.add(new Attempt(0, 2, "3f9a1c2e-7b4d-4c55-9a0e-1d2f3a4b5c6d", 2_300, 9_000, true, 201, null, true, "{\"id\":\"p\"}"));
                records.add(record);
                charges.add(new LedgerCharge("ch_5d1e9f0a", "charge-8c41d2e09b7f", 4_250, "EUR", "card-idem-lossy-007", null,
                        "2025-01-01T00:00:00Z"));
            }
            LedgerFigures ledger = !scenario.messaging() ? null
                    : scenario.expectation() == Expectation.EXACTLY_ONCE ? new LedgerFigures(40, 40, 0, 0, 2, 3) : new LedgerFigures(40, 73, 33, 0, 2, 3);
            results.add(new ScenarioResult(scenario, figures, true, Map.of("responsesDropped", 7L), 0, 0, 3_000 + 100 * n, records, charges, ledger));
        }
        List<PatternResult> patterns = new ArrayList<>();
        for (PatternRow row : Patterns.all()) {
            patterns.add(new PatternResult(row, sides(row), row == RedisRow.ROW
                    ? "the store's build() refuses the first server: the server does not keep idempotency records durably: appendonly is 'no'"
                    : null, 12_517, null));
        }
        LabSettings settings = new LabSettings(40, 4, 2, 42, null, Path.of("data", "lab"), Scenarios.all(), Patterns.all());
        return new LabReport(Instant.parse("2025-01-01T00:00:00Z"), 240_000, settings, results, ReplaySample.find(results).orElseThrow(), patterns);
    }

    private static List<SideResult> sides(PatternRow row) {
        List<SideResult> sides = new ArrayList<>();
        for (Side side : row.sides()) {
            boolean naive = side.expected() == Verdict.FAILS;
            if (row == FleetRow.ROW) {
                sides.add(new SideResult(side, 1_200, "1200 charges; " + (naive ? 37 : 0) + " charged 2+, 0 2xx unpaid, 3 gave up", naive ? 37 : 0,
                        120_000, Double.NaN, fleet(naive)));
            } else if (row == LockRow.ROW) {
                sides.add(new SideResult(side, 40, (naive ? 154 : 40) + " effects; 160 attempts, 1043/s", naive ? 40 : 0, 839, naive ? 191 : 634));
            } else {
                sides.add(new SideResult(side, 40, naive ? "paid 33,653.13 of 20,919.45 due" : "40 postings (+8 aborted); 2 kills", naive ? 10 : 0,
                        17_478));
            }
        }
        return sides;
    }

    private static FleetFigures fleet(boolean naive) {
        List<NemesisEvent> timeline = List.of(new NemesisEvent(4_000, "sigkill", "instance-2", "pid 4242"),
                new NemesisEvent(9_500, "pg-terminate", "instance-1", "3 backends"), new NemesisEvent(14_000, "sigstop", "instance-3", "2 s"),
                new NemesisEvent(15_000, "restart", "instance-2", "after exit 137"));
        List<Integer> perSecond = new ArrayList<>();
        for (int s = 0; s < 60; s++) {
            perSecond.add(18 + s % 5);
        }
        return new FleetFigures(3, 1_200, 1_530, 210, naive ? 1_237 : 1_200, naive ? 37 : 0, 0, naive ? 12 : 0, 0, 0, 0, 3, 4,
                Map.of("503", 41, "no answer", 12), 21.4, 488, Map.of("takeovers", 17L, "leasesLost", 2L, "coalescedCommits", 5_120L), 4, timeline,
                perSecond, naive ? Map.of() : Map.of("instance-1", "on (--coalesce=on)", "instance-2", "off (--coalesce=dialect)",
                        "instance-3", "off (--coalesce=dialect)"));
    }
}
