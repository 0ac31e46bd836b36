package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The fleet row's own parts of the report: its table in the terminal, its timeline and chart in HTML, every figure in JSON. */
final class FleetReport {
    static final List<String> HEADERS = List.of("fleet", "payments", "requests", "hedges", "charges", "charged 2+", "2xx no charge",
            "bodies differ", "charge not on row", "2 rows/key", "unasked charges", "500s", "gave up", "unconfirmed", "5xx / no answer", "p50 ms",
            "p99 ms", "takeovers", "leases lost", "restarts", "shows");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private FleetReport() {
    }

    /** The fleet sides of a report, in table order. */
    static List<SideResult> sides(LabReport report) {
        return report.patterns(Group.FLEET).stream().flatMap(p -> p.sides().stream()).filter(s -> s.fleet() != null).toList();
    }

    static List<String> cells(SideResult side) {
        FleetFigures f = side.fleet();
        return List.of(side.side().label(), n(f.payments()), n(f.requests()), n(f.hedges()), n(f.charges()), n(f.chargedTwice()),
                n(f.okWithoutCharge()), n(f.bodiesDiffer()), n(f.chargeNotOnRow()), n(f.twoRowsPerKey()), n(f.unaskedCharges()),
                n(f.answered500()), n(f.gaveUp()), n(f.unconfirmed()), failures(f.failures()), TableRenderer.millis(f.p50Millis()),
                TableRenderer.millis(f.p99Millis()), Long.toString(f.counter("takeovers")), Long.toString(f.counter("leasesLost")),
                n(f.restarts()), (side.asExpected() ? "yes: " : "NO, expected: ") + (side.side().expected() == Verdict.FAILS
                        ? "flagged" : "all must-be-0 at 0"));
    }

    /**
     * The fleet's table and its legend, for the terminal: one line per figure and one column per side
     * (named by its label up to the colon; the legend gives the whole label), so that it stays narrow.
     */
    static String text(LabReport report) {
        List<SideResult> sides = sides(report);
        if (sides.isEmpty()) {
            return "";
        }
        String nl = System.lineSeparator();
        StringBuilder out = new StringBuilder(nl).append("The fleet: every figure over the whole history (gateway ledger, clients, service database)")
                .append(nl).append(TableRenderer.table(transposedHeaders(sides), transposed(sides), 1, sides.size())).append(nl);
        TableRenderer.legend(out, "must be 0: charged 2+, 2xx no charge, bodies differ (keys whose 2xx bodies differ), charge not on row (a 2xx whose "
                + "charge is not on its paid payment row), 2 rows/key, unasked charges (charges no payment asked for), 500s "
                + "(answers that look final: a failure safe to retry is 503 or 409 with Retry-After).");
        for (SideResult side : sides) {
            TableRenderer.legend(out, side.side().label() + "; " + nemesisLine(side.fleet()));
        }
        return out.toString();
    }

    /** "figure", then each side's short label. */
    private static List<String> transposedHeaders(List<SideResult> sides) {
        List<String> headers = new ArrayList<>(List.of("figure"));
        sides.forEach(side -> headers.add(shortLabel(side)));
        return headers;
    }

    /** One line per column of {@link #HEADERS} but the first and the last, then the verdict ("shows") of each side. */
    private static List<List<String>> transposed(List<SideResult> sides) {
        List<List<String>> cells = sides.stream().map(FleetReport::cells).toList();
        List<List<String>> lines = new ArrayList<>();
        for (int column = 1; column < HEADERS.size(); column++) {
            List<String> line = new ArrayList<>(List.of(HEADERS.get(column)));
            for (List<String> side : cells) {
                line.add(side.get(column));
            }
            lines.add(line);
        }
        return lines;
    }

    /** A side's label up to its colon ("control", "idem"), or the whole label if it has none. */
    static String shortLabel(SideResult side) {
        String label = side.side().label();
        int colon = label.indexOf(':');
        return colon > 0 ? label.substring(0, colon) : label;
    }

    static String nemesisLine(FleetFigures f) {
        return String.format("nemesis %d SIGKILL, %d SIGSTOP, %d pg-terminate, %d pg-blackhole, %d pool-pressure, %d gateway-latency; "
                        + "counters: %s%s", f.count("sigkill"), f.count("sigstop"), f.count("pg-terminate"), f.count("pg-blackhole"),
                f.count("pool-pressure"), f.count("gateway-latency"), f.counters(), coalescingLine(f));
    }

    /** Which instance ran with coalesced commits, as each one's store reported it; empty for the control's memory stores. */
    static String coalescingLine(FleetFigures f) {
        if (f.coalescing().isEmpty()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        f.coalescing().forEach((instance, mode) -> parts.add(instance + " " + mode));
        return "; coalesced commits: " + String.join(", ", parts);
    }

    static String failures(Map<String, Integer> failures) {
        if (failures.isEmpty()) {
            return "0";
        }
        List<String> parts = new ArrayList<>();
        failures.forEach((kind, count) -> parts.add(kind + ":" + count));
        return String.join(" ", parts);
    }

    private static String n(int value) {
        return Integer.toString(value);
    }

    /** The fleet's table, its nemesis timeline, and a chart of 2xx per second with the faults on it. */
    static void html(StringBuilder html, LabReport report) {
        List<SideResult> sides = sides(report);
        if (sides.isEmpty()) {
            return;
        }
        // One line per figure and one column per side, as in the terminal: 21 figures side by side do not fit a page.
        html.append("<h3>The fleet, over its whole history</h3>\n<table><tr><th>figure</th>");
        sides.forEach(side -> html.append("<th>").append(HtmlReport.escape(side.side().label())).append("</th>"));
        html.append("</tr>\n");
        List<List<String>> lines = transposed(sides);
        for (int l = 0; l < lines.size(); l++) {
            boolean verdict = l == lines.size() - 1;
            List<String> line = lines.get(l);
            html.append("<tr><td>").append(HtmlReport.escape(line.get(0))).append("</td>");
            for (int i = 1; i < line.size(); i++) {
                String cls = !verdict ? "n" : sides.get(i - 1).asExpected() ? "shows good" : "shows bad";
                html.append("<td class=\"").append(cls).append("\">").append(HtmlReport.escape(line.get(i))).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n");
        for (SideResult side : sides) {
            FleetFigures f = side.fleet();
            html.append("<h3>").append(HtmlReport.escape(side.side().label())).append(": 2xx per second and the nemesis</h3>\n");
            if (!f.coalescing().isEmpty()) {
                html.append("<p>").append(HtmlReport.escape(coalescingLine(f).substring(2))).append("</p>\n");
            }
            html.append(timelineChart(f));
            html.append("<details><summary>timeline (").append(f.timeline().size()).append(" events)</summary><table>")
                    .append("<tr><th>t ms</th><th>event</th><th>target</th><th>detail</th></tr>\n");
            for (NemesisEvent e : f.timeline()) {
                html.append("<tr><td class=\"n\">").append(e.atMillis()).append("</td><td>").append(HtmlReport.escape(e.kind()))
                        .append("</td><td>").append(HtmlReport.escape(e.target())).append("</td><td>")
                        .append(HtmlReport.escape(e.detail())).append("</td></tr>\n");
            }
            html.append("</table></details>\n");
        }
    }

    /** Bars of 2xx answers per second; a marker per fault, colored by kind, at its instant. */
    static String timelineChart(FleetFigures f) {
        List<Integer> perSecond = f.confirmedPerSecond();
        long lastEvent = f.timeline().stream().mapToLong(NemesisEvent::atMillis).max().orElse(0);
        int seconds = Math.max(perSecond.size(), (int) (lastEvent / 1000) + 1);
        int max = Math.max(1, perSecond.stream().mapToInt(Integer::intValue).max().orElse(1));
        int width = 1000;
        int height = 160;
        double step = (double) width / seconds;
        StringBuilder svg = new StringBuilder(String.format("<svg width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"2xx per second and faults\">%n",
                width + 60, height + 70));
        for (int s = 0; s < perSecond.size(); s++) {
            double h = perSecond.get(s) * (double) height / max;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2e7d32\"><title>%d s: %d 2xx</title></rect>",
                    40 + s * step, 10 + height - h, Math.max(1, step - 1), h, s, perSecond.get(s)));
        }
        svg.append(String.format("<text x=\"0\" y=\"20\" font-size=\"11\">%d/s</text>%n", max));
        List<String> kinds = NemesisEvent.FAULT_KINDS;
        String[] colors = {"#c62828", "#6a1b9a", "#ef6c00", "#5d4037", "#1565c0", "#00838f"};
        for (NemesisEvent e : f.timeline()) {
            int k = kinds.indexOf(e.kind());
            String color = k >= 0 ? colors[k] : "#757575";
            double x = 40 + e.atMillis() / 1000.0 * step;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\"%s><title>%s</title></line>%n",
                    x, x, 10 + height, color, k >= 0 ? "2" : "1", k >= 0 ? "" : " stroke-dasharray=\"3 3\"",
                    HtmlReport.escape(e.atMillis() + " ms " + e.kind() + " " + e.target() + ": " + e.detail())));
        }
        for (int k = 0; k < kinds.size(); k++) {
            svg.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>%n",
                    40 + k * 160, height + 30, colors[k], 56 + k * 160, height + 40, kinds.get(k)));
        }
        svg.append(String.format("<text x=\"40\" y=\"%d\" font-size=\"11\">seconds since the traffic began: 0 to %d; dashed: restarts, exits, SIGCONT</text>%n",
                height + 62, seconds));
        return svg.append("</svg>\n").toString();
    }

    /** Every figure of a fleet side, for the JSON report. */
    static ObjectNode json(FleetFigures f) {
        ObjectNode node = JSON.valueToTree(f);
        node.put("violations", f.violations());
        node.put("answered500", f.answered500());
        return node;
    }
}
