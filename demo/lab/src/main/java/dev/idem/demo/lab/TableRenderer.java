package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The lab's tables as plain text, each within {@link #WIDTH} columns: the payments rows in two tables
 * (what each ran and what it shows; what was counted), the ledger rows in two of their own, the
 * pattern rows in theirs, then the fleet's ({@link FleetReport}). A text column too wide for the
 * terminal wraps inside its column; the legends under the tables wrap at the same width.
 */
final class TableRenderer {
    /** The widest line the lab prints in its tables and legends. */
    static final int WIDTH = 120;

    static final List<String> HEADERS = List.of("scenario", "client", "server", "fault", "payments", "requests", "charges",
            "lost", "charged 2+", "unconfirmed", "replies differ", "p50 ms", "p99 ms", "shows");
    /** The columns of {@link #HEADERS} in the terminal's first payments table: what ran, and what it shows. */
    private static final List<Integer> RAN = List.of(0, 1, 2, 3, 13);
    /** The columns of {@link #HEADERS} in the terminal's second payments table: what was counted. */
    private static final List<Integer> COUNTED = List.of(0, 4, 5, 6, 7, 8, 9, 10, 11, 12);

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
    private static final List<Integer> LEDGER_RAN = List.of(0, 1, 2, 8);
    private static final List<Integer> LEDGER_COUNTED = List.of(0, 3, 4, 5, 6, 7);

    /** One row of cells per messaging scenario, in the order of {@link #LEDGER_HEADERS}. */
    static List<String> ledgerCells(ScenarioResult result) {
        Scenario s = result.scenario();
        LedgerFigures l = result.ledger();
        return List.of(s.id(), s.consumer().label(), s.fault().label(), Integer.toString(l.paid()), Integer.toString(l.entries()),
                Integer.toString(l.duplicatedEntries()), Integer.toString(l.missing()), Integer.toString(l.consumerKills()),
                (result.asExpected() ? "yes: " : "NO, expected: ") + s.expectation().label());
    }

    static final List<String> PATTERN_HEADERS = List.of("row", "side", "fault", "sink after the fault", "items", "wrong", "ms", "shows");
    /** The pattern table in the terminal leaves the fault to the legend under it. */
    private static final List<Integer> PATTERN_COLUMNS = List.of(0, 1, 3, 4, 5, 6, 7);

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
        return withNote(result, what);
    }

    private static String withNote(PatternResult result, String what) {
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
        List<ScenarioResult> payments = report.results().stream().filter(r -> r.ledger() == null).toList();
        if (!payments.isEmpty()) {
            httpTables(out, payments.stream().map(TableRenderer::cells).toList());
            payments.stream().filter(r -> r.scenario().fault() == Fault.RETRY_AFTER_EXPIRY).forEach(r -> legend(out, lateRetryLegend(r)));
            payments.stream().filter(r -> r.abandonment() != null).forEach(r -> legend(out, abandonedLegend(r)));
        }
        ledgerTables(out, report);
        patternTable(out, report);
        out.append(FleetReport.text(report));
        out.append(FailoverReport.text(report));
        return out.toString();
    }

    private static void httpTables(StringBuilder out, List<List<String>> rows) {
        String nl = System.lineSeparator();
        out.append("Payments: what each scenario ran, and whether it shows what it exists to show").append(nl);
        out.append(table(pick(HEADERS, RAN), rows.stream().map(r -> pick(r, RAN)).toList(), -1, -1)).append(nl);
        out.append("Payments: what was counted").append(nl);
        out.append(table(pick(HEADERS, COUNTED), rows.stream().map(r -> pick(r, COUNTED)).toList(), 1, COUNTED.size() - 1)).append(nl);
        legend(out, "lost: no charge at the gateway and the client gave up.  charged 2+: payments the gateway charged more than once.  "
                + "unconfirmed: charged, but the client gave up without a 2xx.  replies differ: keys whose 2xx replies were not identical.  "
                + "Counted from the gateway's GET /ledger joined to the clients' records by card; latency is per request.");
    }

    /** How a late-retry row's retries were answered: the last request of every payment is its late retry. */
    static String lateRetryLegend(ScenarioResult result) {
        int expired = 0;
        int ranAgain = 0;
        int replayed = 0;
        for (PaymentRecord record : result.records()) {
            List<Attempt> attempts = record.attempts();
            Attempt late = attempts.get(attempts.size() - 1);
            if (late.expired()) {
                expired++;
            } else if (late.succeeded() && late.replayed()) {
                replayed++;
            } else if (late.succeeded()) {
                ranAgain++;
            }
        }
        int others = result.records().size() - expired - ranAgain - replayed;
        long retention = result.scenario().fault().keyRetention().toSeconds();
        return result.scenario().id() + ": every payment retried once with its key after the " + retention + " s retention: "
                + expired + " answered 410 key-expired, " + ranAgain + " ran again as new requests (201)"
                + (replayed == 0 ? "" : ", " + replayed + " replayed") + (others == 0 ? "" : ", " + others + " otherwise") + ".";
    }

    /** What became of a give-up row's abandoned payments, before and after their late retries. */
    static String abandonedLegend(ScenarioResult result) {
        Abandonment a = result.abandonment();
        return result.scenario().id() + ": " + a.gaveUp() + " clients gave up after one request, " + a.charged()
                + " of them charged; after " + Math.round(a.waitedMillis() / 1000.0) + " s without a retry, " + a.unrecorded()
                + " charged and never recorded as paid by the service; then one late retry each: " + a.lateReplayed()
                + " replayed the stored answer, " + a.lateRan() + " ran the payment (or its rest)"
                + (a.lateOther() == 0 ? "" : ", " + a.lateOther() + " otherwise") + ".";
    }

    private static void ledgerTables(StringBuilder out, LabReport report) {
        List<List<String>> rows = report.results().stream().filter(r -> r.ledger() != null).map(TableRenderer::ledgerCells).toList();
        if (rows.isEmpty()) {
            return;
        }
        String nl = System.lineSeparator();
        out.append(out.length() > 0 ? nl : "");
        out.append("Payment events: the service's outbox -> Kafka -> the ledger consumer").append(nl);
        out.append(table(pick(LEDGER_HEADERS, LEDGER_RAN), rows.stream().map(r -> pick(r, LEDGER_RAN)).toList(), -1, -1)).append(nl);
        out.append("Payment events: the ledger, counted").append(nl);
        out.append(table(pick(LEDGER_HEADERS, LEDGER_COUNTED), rows.stream().map(r -> pick(r, LEDGER_COUNTED)).toList(), 1,
                LEDGER_COUNTED.size() - 1)).append(nl);
        legend(out, "paid: payments the service confirmed.  applied 2+: ledger entries beyond the first for a payment.  "
                + "missing: confirmed payments with no ledger entry.  consumer kills: halts after the database commit, before the offset commit.  "
                + "Counted from the consumer's GET /ledger once its group had committed every offset of the topic.");
    }

    private static void patternTable(StringBuilder out, LabReport report) {
        if (report.patterns().isEmpty()) {
            return;
        }
        List<List<String>> lines = new ArrayList<>();
        report.patterns().forEach(p -> patternCells(p).forEach(cells -> lines.add(pick(cells, PATTERN_COLUMNS))));
        String nl = System.lineSeparator();
        out.append(out.length() > 0 ? nl : "");
        out.append("The other patterns: a naive side and an idempotent side under the same fault, each counted from its own sink")
                .append(nl);
        out.append(table(pick(PATTERN_HEADERS, PATTERN_COLUMNS), lines, 3, 5)).append(nl);
        for (PatternResult result : report.patterns()) {
            // The terminal's table has no fault column: each row's fault heads its legend.
            legend(out, result.row().id() + " fault: " + result.row().fault() + ".");
            legend(out, patternLegend(result));
        }
    }

    private static List<String> pick(List<String> cells, List<Integer> columns) {
        return columns.stream().map(cells::get).toList();
    }

    /** Text under a table, wrapped at {@link #WIDTH}. */
    static void legend(StringBuilder out, String text) {
        wrap(text, WIDTH).forEach(line -> out.append(line).append(System.lineSeparator()));
    }

    /**
     * A header, a rule and the rows, columns padded to their widest cell; columns first..last (inclusive)
     * are right-aligned numbers. When the table is wider than {@link #WIDTH}, its widest text columns
     * (never the first) are narrowed and their cells wrap onto further lines, at spaces where they can.
     */
    static String table(List<String> headers, List<List<String>> body, int firstNumber, int lastNumber) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(headers);
        rows.addAll(body);
        int columns = headers.size();
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        while (total(widths) > WIDTH) {
            int widest = -1;
            for (int i = 1; i < columns; i++) {
                boolean number = i >= firstNumber && i <= lastNumber;
                if (!number && widths[i] > MIN_WRAPPED && (widest < 0 || widths[i] > widths[widest])) {
                    widest = i;
                }
            }
            if (widest < 0) {
                break;
            }
            widths[widest]--;
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<List<String>> wrapped = new ArrayList<>();
            int height = 1;
            for (int i = 0; i < columns; i++) {
                List<String> parts = wrap(rows.get(r).get(i), widths[i]);
                wrapped.add(parts);
                height = Math.max(height, parts.size());
            }
            for (int h = 0; h < height; h++) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < columns; i++) {
                    boolean number = i >= firstNumber && i <= lastNumber;
                    String cell = h < wrapped.get(i).size() ? wrapped.get(i).get(h) : "";
                    String padded = number ? " ".repeat(widths[i] - cell.length()) + cell : cell + " ".repeat(widths[i] - cell.length());
                    line.append(i == 0 ? "" : "  ").append(padded);
                }
                out.append(line.toString().stripTrailing()).append(System.lineSeparator());
            }
            if (r == 0) {
                out.append("-".repeat(total(widths))).append(System.lineSeparator());
            }
        }
        return out.toString();
    }

    /** The narrowest a wrapped column becomes. */
    private static final int MIN_WRAPPED = 12;

    private static int total(int[] widths) {
        int sum = 2 * (widths.length - 1);
        for (int w : widths) {
            sum += w;
        }
        return sum;
    }

    /** Text broken into lines of at most {@code width} characters, at spaces where it can; an empty text is one empty line. */
    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        String rest = text;
        while (rest.length() > width) {
            int cut = rest.lastIndexOf(' ', width);
            if (cut <= 0) {
                lines.add(rest.substring(0, width));
                rest = rest.substring(width);
            } else {
                lines.add(rest.substring(0, cut).stripTrailing());
                rest = rest.substring(cut + 1);
            }
        }
        lines.add(rest);
        return lines;
    }

    static String millis(double value) {
        return value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
