package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The lab's table as plain text. */
final class TableRenderer {
    static final List<String> HEADERS = List.of("scenario", "client", "server", "fault", "payments", "requests", "charges",
            "lost", "charged 2+", "unconfirmed", "replies differ", "p50 ms", "p99 ms", "shows");

    private TableRenderer() {
    }

    /** One row of cells per scenario, in the order of {@link #HEADERS}. */
    static List<String> cells(ScenarioResult result) {
        Scenario s = result.scenario();
        Figures f = result.figures();
        return List.of(s.id(), s.strategy().label(), s.variant().label(), s.fault().label(),
                Integer.toString(f.payments()), Integer.toString(f.requestsSent()), Integer.toString(f.charges()),
                Integer.toString(f.lost()), Integer.toString(f.duplicated()), Integer.toString(f.unconfirmed()),
                Integer.toString(f.differingKeys()), millis(f.p50Millis()), millis(f.p99Millis()),
                (result.asExpected() ? "yes: " : "NO, expected: ") + s.expectation().label());
    }

    static String render(LabReport report) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADERS);
        report.results().forEach(r -> rows.add(cells(r)));
        int[] widths = new int[HEADERS.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<String> row = rows.get(r);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                boolean number = i >= 4 && i <= 12;
                String cell = row.get(i);
                String padded = number ? " ".repeat(widths[i] - cell.length()) + cell : cell + " ".repeat(widths[i] - cell.length());
                line.append(i == 0 ? "" : "  ").append(padded);
            }
            out.append(line.toString().stripTrailing()).append(System.lineSeparator());
            if (r == 0) {
                int total = line.toString().stripTrailing().length();
                out.append("-".repeat(total)).append(System.lineSeparator());
            }
        }
        out.append(System.lineSeparator());
        out.append("lost: no charge at the gateway and the client gave up.  charged 2+: payments the gateway charged more than once.")
                .append(System.lineSeparator());
        out.append("unconfirmed: charged, but the client gave up without a 2xx.  replies differ: keys whose 2xx replies were not identical.")
                .append(System.lineSeparator());
        out.append("Counted from the gateway's GET /ledger joined to the clients' records by card; latency is per request.")
                .append(System.lineSeparator());
        return out.toString();
    }

    static String millis(double value) {
        return value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
