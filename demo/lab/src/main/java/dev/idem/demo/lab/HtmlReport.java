package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report as one self-contained HTML page, one section per pattern: the idempotency keys' table
 * with a bar chart of charges per payment and a sequence diagram of one measured replay; the inbox's
 * table with a chart of ledger entries; each other pattern's table with a chart of the items each
 * side got right and wrong (and the lock's cost). Inline SVG, no scripts, no external assets, so it
 * opens from disk anywhere.
 */
final class HtmlReport {
    private static final List<String> BUCKETS = List.of("0", "1", "2", "3+");
    private static final List<String> BUCKET_LABELS = List.of("not charged", "charged once", "charged twice", "charged 3+ times");
    private static final List<String> BUCKET_COLORS = List.of("#9e9e9e", "#2e7d32", "#ef6c00", "#c62828");
    private static final String GOOD = "#2e7d32";
    private static final String BAD = "#c62828";

    private HtmlReport() {
    }

    /** One bar of a chart: its label, its segments' sizes, and the size of a full bar. */
    record Bar(String label, List<Integer> segments, int scale) {
    }

    static String render(LabReport report) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>idem lab</title>\n<style>\n")
                // At most 1200 px of content, so a 1280 px window never scrolls sideways; a table wider than that scrolls inside itself.
                .append("body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:1200px}")
                .append("table{border-collapse:collapse;font-size:13px;display:block;max-width:100%;overflow-x:auto}")
                .append("th,td{border:1px solid #ccc;padding:4px 6px}.chart{max-width:100%;overflow-x:auto}")
                .append("td.shows.good{color:#2e7d32}td.shows.bad{color:#c62828;font-weight:bold}")
                .append("th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}td:first-child{white-space:nowrap}td.shows{min-width:8em}")
                .append("tr.bad td{background:#fdecea}tr.good td.shows{color:#2e7d32}tr.bad td.shows{color:#c62828;font-weight:bold}")
                .append("caption{text-align:left;font-size:13px;color:#555;caption-side:bottom;padding-top:6px}")
                .append("svg text{font-family:system-ui,sans-serif}code{background:#f3f3f3;padding:0 3px}")
                .append("\n</style></head><body>\n");
        html.append("<h1>idem lab</h1>\n<p>")
                .append(escape(String.format(Locale.ROOT, "%d payments per scenario, seed %d, %s; run started %s, took %.0f s.",
                        report.settings().payments(), report.settings().seed(), report.settings().databaseLabel(), report.startedAt(),
                        report.millis() / 1000.0)))
                .append(" Every figure is counted from a sink: the card gateway's ledger (<code>GET /ledger</code>) joined to the clients' own"
                        + " records by card, the ledger consumer's entries, or the tables and topics a pattern row wrote.</p>\n");
        for (Group group : Group.values()) {
            switch (group) {
                case KEYS -> keys(html, report);
                case INBOX -> inbox(html, report);
                default -> pattern(html, group, report.patterns(group));
            }
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    private static void keys(StringBuilder html, LabReport report) {
        List<ScenarioResult> results = report.results(Group.KEYS);
        if (results.isEmpty()) {
            return;
        }
        html.append("<h2>").append(escape(Group.KEYS.title())).append("</h2>\n");
        rows(html, TableRenderer.HEADERS, results.stream().map(r -> new TableLine(TableRenderer.cells(r), r.asExpected())).toList(), 4, 12,
                "lost: no charge and the client gave up; charged 2+: charged more than once; unconfirmed: charged but the "
                        + "client gave up without a 2xx; replies differ: keys whose 2xx replies were not identical; latency per request.");
        results.stream().filter(r -> r.scenario().fault() == Fault.RETRY_AFTER_EXPIRY)
                .forEach(r -> html.append("<p>").append(escape(TableRenderer.lateRetryLegend(r))).append("</p>\n"));
        results.stream().filter(r -> r.abandonment() != null)
                .forEach(r -> html.append("<p>").append(escape(TableRenderer.abandonedLegend(r))).append("</p>\n"));
        html.append("<h3>Charges per payment</h3>\n");
        html.append(barChart(results));
        html.append("<h3>One replayed request</h3>\n");
        if (report.sample() != null) {
            html.append("<p>").append(escape(sampleCaption(report.sample()))).append("</p>\n");
            html.append(sequenceDiagram(report.sample()));
        } else {
            html.append("<p>No idempotent payment in this run had its response lost and then replayed, so there is nothing to draw. "
                    + "Run the <code>idem-lossy</code> scenario with more payments.</p>\n");
        }
    }

    /** The messaging scenarios' consumer side, if any ran. */
    private static void inbox(StringBuilder html, LabReport report) {
        List<ScenarioResult> messaging = report.results(Group.INBOX).stream().filter(r -> r.ledger() != null).toList();
        if (messaging.isEmpty()) {
            return;
        }
        html.append("<h2>").append(escape(Group.INBOX.title())).append(": outbox → Kafka → ledger consumer</h2>\n");
        rows(html, TableRenderer.LEDGER_HEADERS, messaging.stream().map(r -> new TableLine(TableRenderer.ledgerCells(r), r.asExpected())).toList(),
                3, 7, "The service writes each payment's event in the transaction that marks it paid; a relay publishes it to Kafka "
                        + "with a stable message id. The consumer is halted after its database commit and before its offset commit, then restarted, "
                        + "so Kafka delivers that batch again. applied 2+: ledger entries beyond the first for a payment; missing: confirmed payments "
                        + "with no entry.");
        html.append("<h3>Ledger entries</h3>\n");
        int scale = messaging.stream().mapToInt(r -> r.ledger().entries() + r.ledger().missing()).max().orElse(1);
        html.append(chart("ledger entries per scenario", List.of("first entry of a payment", "entry beyond the first", "payment missing"),
                List.of(GOOD, BAD, "#9e9e9e"), messaging.stream().map(r -> new Bar(r.scenario().id(), List.of(
                        r.ledger().entries() - r.ledger().duplicatedEntries(), r.ledger().duplicatedEntries(), r.ledger().missing()), scale)).toList()));
    }

    private static void pattern(StringBuilder html, Group group, List<PatternResult> results) {
        if (results.isEmpty()) {
            return;
        }
        html.append("<h2>").append(escape(group.title())).append("</h2>\n");
        List<TableLine> lines = new ArrayList<>();
        for (PatternResult result : results) {
            List<List<String>> cells = TableRenderer.patternCells(result);
            for (int i = 0; i < cells.size(); i++) {
                lines.add(new TableLine(cells.get(i), result.sides().isEmpty() ? result.asExpected() : result.sides().get(i).asExpected()));
            }
        }
        rows(html, TableRenderer.PATTERN_HEADERS, lines, 4, 6,
                String.join(" ", results.stream().map(TableRenderer::patternLegend).toList()));
        List<Bar> bars = new ArrayList<>();
        for (PatternResult result : results) {
            for (SideResult side : result.sides()) {
                bars.add(new Bar(side.side().label(), List.of(side.items() - Math.min(side.wrong(), side.items()), Math.min(side.wrong(), side.items())),
                        side.items()));
            }
        }
        if (!bars.isEmpty()) {
            html.append(chart("items right and wrong per side", List.of("right", "wrong"), List.of(GOOD, BAD), bars));
        }
        costChart(html, results);
        if (group == Group.FLEET) {
            FleetReport.html(html, new LabReport(java.time.Instant.EPOCH, 0, null, List.of(), null, results));
        }
    }

    /** For a row that compares costs: attempts per second of each side. */
    private static void costChart(StringBuilder html, List<PatternResult> results) {
        List<SideResult> costed = results.stream().flatMap(r -> r.sides().stream()).filter(s -> !Double.isNaN(s.perSecond())).toList();
        if (costed.isEmpty()) {
            return;
        }
        int scale = (int) Math.ceil(costed.stream().mapToDouble(SideResult::perSecond).max().orElse(1));
        html.append("<h3>Cost: attempts per second</h3>\n");
        html.append(chart("attempts per second per side", List.of("attempts per second"), List.of("#4a6fa5"),
                costed.stream().map(s -> new Bar(s.side().label(), List.of((int) Math.round(s.perSecond())), scale)).toList()));
    }

    /** A line of a table and whether it shows what it exists to show. */
    private record TableLine(List<String> cells, boolean good) {
    }

    /** A table; columns firstNumber..lastNumber are right-aligned numbers, the last is the verdict. */
    private static void rows(StringBuilder html, List<String> headers, List<TableLine> lines, int firstNumber, int lastNumber, String caption) {
        html.append("<table>\n<tr>");
        headers.forEach(h -> html.append("<th>").append(escape(h)).append("</th>"));
        html.append("</tr>\n");
        for (TableLine line : lines) {
            List<String> cells = line.cells();
            html.append("<tr class=\"").append(line.good() ? "good" : "bad").append("\">");
            for (int i = 0; i < cells.size(); i++) {
                String cls = i >= firstNumber && i <= lastNumber ? " class=\"n\"" : i == cells.size() - 1 ? " class=\"shows\"" : "";
                html.append("<td").append(cls).append(">").append(escape(cells.get(i))).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("<caption>").append(escape(caption)).append("</caption>\n</table>\n");
    }

    /** One horizontal bar per scenario, split into payments charged 0, 1, 2 and 3+ times. */
    static String barChart(List<ScenarioResult> results) {
        List<Bar> bars = results.stream().map(r -> new Bar(r.scenario().id(),
                BUCKETS.stream().map(b -> r.figures().chargesPerPayment().getOrDefault(b, 0)).toList(), r.figures().payments())).toList();
        return chart("payments by number of charges, per scenario", BUCKET_LABELS, BUCKET_COLORS, bars);
    }

    /** Horizontal stacked bars under a legend; a segment's count is written on it when it is wide enough. */
    static String chart(String description, List<String> legend, List<String> colors, List<Bar> bars) {
        // Room for the longest label (about 7 px a character at 12 px), so none is clipped at the left edge.
        int labelWidth = Math.max(120, bars.stream().mapToInt(b -> b.label().length()).max().orElse(0) * 7 + 16);
        int barWidth = 560;
        int rowHeight = 26;
        int top = 34;
        int height = top + bars.size() * rowHeight + 10;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg class=\"chart\" width=\"").append(labelWidth + barWidth + 60).append("\" height=\"")
                .append(height).append("\" role=\"img\" aria-label=\"").append(escape(description)).append("\">\n");
        int x = labelWidth;
        for (int i = 0; i < legend.size(); i++) {
            svg.append(String.format("<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, colors.get(i)));
            svg.append(String.format("<text x=\"%d\" y=\"16\" font-size=\"12\">%s</text>\n", x + 16, escape(legend.get(i))));
            x += 40 + legend.get(i).length() * 7;
        }
        int y = top;
        for (Bar bar : bars) {
            svg.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">%s</text>\n", labelWidth - 8, y + 15,
                    escape(bar.label())));
            double offset = labelWidth;
            for (int i = 0; i < bar.segments().size(); i++) {
                int count = bar.segments().get(i);
                if (count <= 0 || bar.scale() <= 0) {
                    continue;
                }
                double w = (double) count / bar.scale() * barWidth;
                svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %d %s</title></rect>",
                        offset, y, w, rowHeight - 8, colors.get(i), escape(bar.label()), count, escape(legend.get(i))));
                if (w >= 22) {
                    svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#fff\" text-anchor=\"middle\">%d</text>",
                            offset + w / 2, y + 13, count));
                }
                svg.append('\n');
                offset += w;
            }
            y += rowHeight;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static String sampleCaption(ReplaySample sample) {
        return "Payment " + sample.payment().id() + " of scenario " + sample.scenarioId() + ", as measured: the first attempt got no "
                + "answer, the retry with the same key was answered 201 with Idempotent-Replayed: true, and the gateway's ledger has exactly "
                + "one charge (" + sample.charge().chargeId() + ") for its card. The replay proves the first attempt had run, so its "
                + "response was the message lost.";
    }

    /** Client, fault proxy, payments service and gateway, for a lost response and its replayed retry. */
    static String sequenceDiagram(ReplaySample sample) {
        Attempt first = sample.attempts().get(0);
        Attempt retry = sample.attempts().get(1);
        int[] lane = {90, 320, 560, 800};
        String[] names = {"client", "fault proxy", "payments service", "card gateway"};
        StringBuilder svg = new StringBuilder();
        int height = 520;
        svg.append("<svg width=\"900\" height=\"").append(height)
                .append("\" role=\"img\" aria-label=\"sequence diagram of a lost response and its replay\">\n")
                .append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\">")
                .append("<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n");
        for (int i = 0; i < lane.length; i++) {
            svg.append(String.format("<rect x=\"%d\" y=\"10\" width=\"150\" height=\"30\" rx=\"4\" fill=\"#eef3fb\" stroke=\"#6b8cc7\"/>", lane[i] - 75));
            svg.append(String.format("<text x=\"%d\" y=\"30\" font-size=\"13\" text-anchor=\"middle\">%s</text>", lane[i], names[i]));
            svg.append(String.format("<line x1=\"%d\" y1=\"40\" x2=\"%d\" y2=\"%d\" stroke=\"#bbb\" stroke-dasharray=\"4 4\"/>%n", lane[i], lane[i], height - 10));
        }
        String key = shortKey(first.key());
        int y = 70;
        y = message(svg, lane[0], lane[1], y, String.format("POST /payments  Idempotency-Key: %s  (t=%d ms)", key, first.startMillis()), false);
        y = message(svg, lane[1], lane[2], y, "forwarded", false);
        y = note(svg, lane[2], y, "claims the key, then runs its phases");
        y = message(svg, lane[2], lane[3], y, "POST /charges  Idempotency-Key: " + shortKey(sample.charge().key()), false);
        y = note(svg, lane[3], y, "ledger: " + sample.charge().chargeId());
        y = message(svg, lane[3], lane[2], y, "201 " + sample.charge().chargeId(), false);
        y = note(svg, lane[2], y, "stores the 201 under the key");
        y = message(svg, lane[2], lane[1], y, "201 Created", false);
        y = lost(svg, lane[1], lane[0], y, String.format(Locale.ROOT, "response lost: %s after %.0f ms", first.failure(), first.durationMicros() / 1000.0));
        y += 10;
        y = message(svg, lane[0], lane[1], y, String.format("retry, same key %s  (t=%d ms)", key, retry.startMillis()), false);
        y = message(svg, lane[1], lane[2], y, "forwarded", false);
        y = note(svg, lane[2], y, "key completed: replays the stored 201; the gateway is not called");
        y = message(svg, lane[2], lane[1], y, "201  Idempotent-Replayed: true", false);
        message(svg, lane[1], lane[0], y, String.format(Locale.ROOT, "201 replayed (%.0f ms)", retry.durationMicros() / 1000.0), false);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static int message(StringBuilder svg, int from, int to, int y, String label, boolean dashed) {
        svg.append(String.format("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"%s marker-end=\"url(#arrow)\"/>", from, y, to, y,
                dashed ? " stroke-dasharray=\"5 3\"" : ""));
        svg.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s</text>%n", (from + to) / 2, y - 5, escape(label)));
        return y + 30;
    }

    private static int lost(StringBuilder svg, int from, int to, int y, String label) {
        int mid = (from + to) / 2;
        svg.append(String.format("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c62828\" stroke-dasharray=\"5 3\"/>", from, y, mid, y));
        svg.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"18\" fill=\"#c62828\" text-anchor=\"middle\">&#x2715;</text>", mid, y + 6));
        svg.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#c62828\" text-anchor=\"middle\">%s</text>%n", mid, y - 8, escape(label)));
        return y + 30;
    }

    private static int note(StringBuilder svg, int x, int y, String text) {
        // About 7 px per character at 11 px (ids are hex digits, wider than average text).
        int width = Math.max(120, text.length() * 7 + 16);
        int left = Math.min(Math.max(4, x - width / 2), 896 - width);
        svg.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"20\" fill=\"#fff8e1\" stroke=\"#e0c060\"/>", left, y - 14, width));
        svg.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>%n", left + width / 2, y, escape(text)));
        return y + 26;
    }

    private static String shortKey(String key) {
        if (key == null) {
            return "(none)";
        }
        if (key.length() <= 14) {
            return key;
        }
        // A derived key ("charge-3f9a…") keeps its phase name and four characters of the digest.
        int dash = key.indexOf('-');
        boolean named = dash > 0 && dash <= 10 && key.substring(0, dash).chars().allMatch(Character::isLetter);
        int keep = named ? dash + 5 : 8;
        return key.substring(0, keep) + "…" + key.substring(key.length() - 4);
    }

    static String escape(String text) {
        if (text == null) {
            return "";
        }
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
