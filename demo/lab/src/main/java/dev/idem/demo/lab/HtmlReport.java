package dev.idem.demo.lab;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report as one self-contained HTML page: the table, a bar chart of charges per payment for
 * every scenario, and a sequence diagram of one measured replay. Inline SVG, no scripts, no external
 * assets, so it opens from disk anywhere.
 */
final class HtmlReport {
    private static final Map<String, String> BUCKET_COLORS = Map.of("0", "#9e9e9e", "1", "#2e7d32", "2", "#ef6c00", "3+", "#c62828");
    private static final List<String> BUCKETS = List.of("0", "1", "2", "3+");
    private static final Map<String, String> BUCKET_LABELS = Map.of("0", "not charged", "1", "charged once", "2", "charged twice",
            "3+", "charged 3+ times");

    private HtmlReport() {
    }

    static String render(LabReport report) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>idem lab</title>\n<style>\n")
                .append("body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:1400px}")
                .append("table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:4px 8px}")
                .append("th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}td:first-child{white-space:nowrap}td:nth-child(4){min-width:10em}td.shows{min-width:9em}")
                .append("tr.bad td{background:#fdecea}tr.good td.shows{color:#2e7d32}tr.bad td.shows{color:#c62828;font-weight:bold}")
                .append("caption{text-align:left;font-size:13px;color:#555;caption-side:bottom;padding-top:6px}")
                .append("svg text{font-family:system-ui,sans-serif}code{background:#f3f3f3;padding:0 3px}")
                .append("\n</style></head><body>\n");
        html.append("<h1>idem lab</h1>\n<p>")
                .append(escape(String.format(Locale.ROOT, "%d payments per scenario, seed %d, %s; run started %s, took %.0f s.",
                        report.settings().payments(), report.settings().seed(), report.settings().databaseLabel(), report.startedAt(),
                        report.millis() / 1000.0)))
                .append(" Every figure is counted from the card gateway's ledger (<code>GET /ledger</code>) joined to the clients' own records by card.</p>\n");
        table(html, report);
        ledgerTable(html, report);
        html.append("<h2>Charges per payment</h2>\n");
        html.append(barChart(report.results()));
        html.append("<h2>One replayed request</h2>\n");
        if (report.sample() != null) {
            html.append("<p>").append(escape(sampleCaption(report.sample()))).append("</p>\n");
            html.append(sequenceDiagram(report.sample()));
        } else {
            html.append("<p>No idempotent payment in this run had its response lost and then replayed, so there is nothing to draw. "
                    + "Run the <code>idem-lossy</code> scenario with more payments.</p>\n");
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    private static void table(StringBuilder html, LabReport report) {
        html.append("<table>\n<tr>");
        TableRenderer.HEADERS.forEach(h -> html.append("<th>").append(escape(h)).append("</th>"));
        html.append("</tr>\n");
        for (ScenarioResult result : report.results()) {
            List<String> cells = TableRenderer.cells(result);
            html.append("<tr class=\"").append(result.asExpected() ? "good" : "bad").append("\">");
            for (int i = 0; i < cells.size(); i++) {
                String cls = i >= 4 && i <= 12 ? " class=\"n\"" : i == cells.size() - 1 ? " class=\"shows\"" : "";
                html.append("<td").append(cls).append(">").append(escape(cells.get(i))).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("<caption>lost: no charge and the client gave up; charged 2+: charged more than once; unconfirmed: charged but the "
                + "client gave up without a 2xx; replies differ: keys whose 2xx replies were not identical; latency per request.</caption>\n");
        html.append("</table>\n");
    }

    /** The messaging scenarios' consumer side, if any ran. */
    private static void ledgerTable(StringBuilder html, LabReport report) {
        List<ScenarioResult> messaging = report.results().stream().filter(r -> r.ledger() != null).toList();
        if (messaging.isEmpty()) {
            return;
        }
        html.append("<h2>Payment events: outbox → Kafka → ledger consumer</h2>\n<table>\n<tr>");
        TableRenderer.LEDGER_HEADERS.forEach(h -> html.append("<th>").append(escape(h)).append("</th>"));
        html.append("</tr>\n");
        for (ScenarioResult result : messaging) {
            List<String> cells = TableRenderer.ledgerCells(result);
            html.append("<tr class=\"").append(result.asExpected() ? "good" : "bad").append("\">");
            for (int i = 0; i < cells.size(); i++) {
                String cls = i >= 3 && i <= 7 ? " class=\"n\"" : i == cells.size() - 1 ? " class=\"shows\"" : "";
                html.append("<td").append(cls).append(">").append(escape(cells.get(i))).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("<caption>The service writes each payment's event in the transaction that marks it paid; a relay publishes it to Kafka "
                + "with a stable message id. The consumer is halted after its database commit and before its offset commit, then restarted, "
                + "so Kafka delivers that batch again. applied 2+: ledger entries beyond the first for a payment; missing: confirmed payments "
                + "with no entry.</caption>\n</table>\n");
    }

    /** One horizontal bar per scenario, split into payments charged 0, 1, 2 and 3+ times. */
    static String barChart(List<ScenarioResult> results) {
        int labelWidth = 170;
        int barWidth = 560;
        int rowHeight = 26;
        int top = 34;
        int height = top + results.size() * rowHeight + 10;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg width=\"").append(labelWidth + barWidth + 60).append("\" height=\"")
                .append(height).append("\" role=\"img\" aria-label=\"payments by number of charges, per scenario\">\n");
        int x = labelWidth;
        for (String bucket : BUCKETS) {
            svg.append(String.format("<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, BUCKET_COLORS.get(bucket)));
            svg.append(String.format("<text x=\"%d\" y=\"16\" font-size=\"12\">%s</text>\n", x + 16, BUCKET_LABELS.get(bucket)));
            x += 125;
        }
        int y = top;
        for (ScenarioResult result : results) {
            Figures f = result.figures();
            svg.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">%s</text>\n", labelWidth - 8, y + 15,
                    escape(result.scenario().id())));
            double offset = labelWidth;
            for (String bucket : BUCKETS) {
                int count = f.chargesPerPayment().getOrDefault(bucket, 0);
                if (count == 0 || f.payments() == 0) {
                    continue;
                }
                double w = (double) count / f.payments() * barWidth;
                svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %d payments %s</title></rect>",
                        offset, y, w, rowHeight - 8, BUCKET_COLORS.get(bucket), escape(result.scenario().id()), count, BUCKET_LABELS.get(bucket)));
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
