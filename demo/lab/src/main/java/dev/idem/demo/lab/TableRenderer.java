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

    static final List<String> LEDGER_HEADERS = List.of("scenario", "ledger consumer", "fault", "paid", "ledger entries",
            "applied 2+", "missing", "consumer kills", "shows");

    /** One row of cells per messaging scenario, in the order of {@link #LEDGER_HEADERS}. */
    static List<String> ledgerCells(ScenarioResult result) {
        Scenario s = result.scenario();
        LedgerFigures l = result.ledger();
        return List.of(s.id(), s.consumer().label(), s.fault().label(), Integer.toString(l.paid()), Integer.toString(l.entries()),
                Integer.toString(l.duplicatedEntries()), Integer.toString(l.missing()), Integer.toString(l.consumerKills()),
                (result.asExpected() ? "yes: " : "NO, expected: ") + s.expectation().label());
    }

    static final List<String> PATTERN_HEADERS = List.of("row", "side", "fault", "sink after the fault", "items", "wrong", "ms", "shows");

    /** The lines of a pattern row, one per side, in the order of {@link #PATTERN_HEADERS}; one line if it was skipped or failed. */
    static List<List<String>> patternCells(PatternResult result) {
        PatternRow row = result.row();
        if (result.skipped() != null) {
            return List.of(List.of(row.id(), "skipped (see below)", row.fault(), "", "", "", "", "skipped"));
        }
        if (result.sides().isEmpty()) {
            return List.of(List.of(row.id(), "the row failed (see below)", row.fault(), "", "", "", Long.toString(result.millis()),
                    "NO, it did not run to the end"));
        }
        List<List<String>> lines = new ArrayList<>();
        for (int i = 0; i < result.sides().size(); i++) {
            SideResult side = result.sides().get(i);
            lines.add(List.of(i == 0 ? row.id() : "", side.side().label(), i == 0 ? row.fault() : "", side.sink(),
                    Integer.toString(side.items()), Integer.toString(side.wrong()), Long.toString(side.millis()),
                    (side.asExpected() ? "yes: " : "NO, expected: ") + side.side().expected().label()));
        }
        return lines;
    }

    /** What a pattern row counts, and its note or why it did not run: the line under the table. */
    static String patternLegend(PatternResult result) {
        PatternRow row = result.row();
        String what = row.id() + ": items are " + row.items() + "; wrong: " + row.wrong() + ".";
        if (result.skipped() != null) {
            return what + " Skipped: " + result.skipped() + ".";
        }
        return result.note() == null ? what : what + " " + capitalized(result.note()) + ".";
    }

    private static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    static String render(LabReport report) {
        StringBuilder out = new StringBuilder();
        List<List<String>> rows = new ArrayList<>();
        report.results().forEach(r -> rows.add(cells(r)));
        if (!rows.isEmpty()) {
            httpTable(out, rows);
        }
        ledgerTable(out, report);
        patternTable(out, report);
        out.append(FleetReport.text(report));
        out.append(FailoverReport.text(report));
        return out.toString();
    }

    private static void httpTable(StringBuilder out, List<List<String>> rows) {
        out.append(table(HEADERS, rows, 4, 12));
        out.append(System.lineSeparator());
        out.append("lost: no charge at the gateway and the client gave up.  charged 2+: payments the gateway charged more than once.")
                .append(System.lineSeparator());
        out.append("unconfirmed: charged, but the client gave up without a 2xx.  replies differ: keys whose 2xx replies were not identical.")
                .append(System.lineSeparator());
        out.append("Counted from the gateway's GET /ledger joined to the clients' records by card; latency is per request.")
                .append(System.lineSeparator());
    }

    private static void ledgerTable(StringBuilder out, LabReport report) {
        List<List<String>> ledgerRows = report.results().stream().filter(r -> r.ledger() != null).map(TableRenderer::ledgerCells).toList();
        if (!ledgerRows.isEmpty()) {
            out.append(System.lineSeparator());
            out.append("Payment events: the service's outbox -> Kafka -> the ledger consumer").append(System.lineSeparator());
            out.append(table(LEDGER_HEADERS, ledgerRows, 3, 7));
            out.append(System.lineSeparator());
            out.append("paid: payments the service confirmed.  applied 2+: ledger entries beyond the first for a payment.")
                    .append(System.lineSeparator());
            out.append("missing: confirmed payments with no ledger entry.  consumer kills: halts after the database commit, before the offset commit.")
                    .append(System.lineSeparator());
            out.append("Counted from the consumer's GET /ledger once its group had committed every offset of the topic.")
                    .append(System.lineSeparator());
        }
    }

    private static void patternTable(StringBuilder out, LabReport report) {
        if (report.patterns().isEmpty()) {
            return;
        }
        List<List<String>> lines = new ArrayList<>();
        report.patterns().forEach(p -> lines.addAll(patternCells(p)));
        if (out.length() > 0) {
            out.append(System.lineSeparator());
        }
        out.append("The other patterns: a naive side and an idempotent side under the same fault, each counted from its own sink")
                .append(System.lineSeparator());
        out.append(table(PATTERN_HEADERS, lines, 4, 6));
        out.append(System.lineSeparator());
        for (PatternResult result : report.patterns()) {
            out.append(patternLegend(result)).append(System.lineSeparator());
        }
    }

    /** A header, a rule and the rows, columns padded to their widest cell; columns first..last (inclusive) are right-aligned numbers. */
    static String table(List<String> headers, List<List<String>> body, int firstNumber, int lastNumber) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(headers);
        rows.addAll(body);
        int[] widths = new int[headers.size()];
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
                boolean number = i >= firstNumber && i <= lastNumber;
                String cell = row.get(i);
                String padded = number ? " ".repeat(widths[i] - cell.length()) + cell : cell + " ".repeat(widths[i] - cell.length());
                line.append(i == 0 ? "" : "  ").append(padded);
            }
            out.append(line.toString().stripTrailing()).append(System.lineSeparator());
            if (r == 0) {
                out.append("-".repeat(line.toString().stripTrailing().length())).append(System.lineSeparator());
            }
        }
        return out.toString();
    }

    static String millis(double value) {
        return value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
