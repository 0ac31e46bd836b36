package dev.idem.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A sequence diagram as a standalone SVG file, in the style of the lab report's: a box per
 * participant over a dashed lifeline, solid arrows for messages, yellow notes, red marks for what
 * is lost or crashes. Built step by step from the top; the height follows the steps.
 */
final class SequenceDiagram {
    private static final int LANE_GAP = 220;
    private static final int MARGIN = 100;
    private static final String FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";

    private final String title;
    private final List<String> lanes;
    private final StringBuilder steps = new StringBuilder();
    private int y = 78;

    SequenceDiagram(String title, String... lanes) {
        this.title = title;
        this.lanes = List.of(lanes);
    }

    private int x(int lane) {
        return MARGIN + lane * LANE_GAP;
    }

    private int width() {
        return 2 * MARGIN + (lanes.size() - 1) * LANE_GAP;
    }

    /** An arrow from one lane to another with its label above it. */
    SequenceDiagram message(int from, int to, String label) {
        return arrow(from, to, label, "#333", false);
    }

    /** A dashed arrow: an answer. */
    SequenceDiagram reply(int from, int to, String label) {
        return arrow(from, to, label, "#333", true);
    }

    private SequenceDiagram arrow(int from, int to, String label, String colour, boolean dashed) {
        int x1 = x(from);
        int x2 = x(to);
        steps.append(String.format("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"%s marker-end=\"url(#arrow)\"/>%n", x1, y, x2, y,
                colour, dashed ? " stroke-dasharray=\"6 4\"" : ""));
        text((x1 + x2) / 2, y - 6, 12, "#222", label);
        y += 32;
        return this;
    }

    /** A message that does not arrive: a red dashed line that stops half-way at a cross. */
    SequenceDiagram lost(int from, int to, String label) {
        int x1 = x(from);
        int mid = (x1 + x(to)) / 2;
        steps.append(String.format("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c62828\" stroke-dasharray=\"6 4\"/>%n", x1, y, mid, y));
        text(mid, y + 6, 18, "#c62828", "\u2715");
        text(mid, y - 8, 12, "#c62828", label);
        y += 34;
        return this;
    }

    /** A lane that dies here: a red cross on its lifeline and why. */
    SequenceDiagram crash(int lane, String label) {
        text(x(lane), y + 6, 22, "#c62828", "\u2715");
        text(x(lane), y + 26, 12, "#c62828", label);
        y += 60;
        return this;
    }

    /** A note over one lane. */
    SequenceDiagram note(int lane, String text) {
        return noteAt(x(lane), text);
    }

    /** A note over the span between two lanes. */
    SequenceDiagram note(int from, int to, String text) {
        return noteAt((x(from) + x(to)) / 2, text);
    }

    private SequenceDiagram noteAt(int centre, String text) {
        int w = Math.max(120, (int) (text.length() * 6.4) + 20);
        int left = Math.max(4, Math.min(centre - w / 2, width() - 4 - w));
        steps.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"22\" rx=\"3\" fill=\"#fff8e1\" stroke=\"#e0c060\"/>%n", left, y - 15, w));
        text(left + w / 2, y, 11, "#222", text);
        y += 30;
        return this;
    }

    /** A divider across the diagram: time passes. */
    SequenceDiagram pause(String label) {
        steps.append(String.format("<line x1=\"10\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9aa5b1\" stroke-dasharray=\"2 4\"/>%n", y - 4, width() - 10,
                y - 4));
        text(width() / 2, y + 12, 11, "#5b6570", label);
        y += 34;
        return this;
    }

    private void text(int x, int y, int size, String fill, String text) {
        steps.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"%d\" fill=\"%s\" text-anchor=\"middle\">%s</text>%n", x, y, size, fill,
                Layout.escape(text)));
    }

    String svg() {
        int height = y + 10;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
                + "font-family=\"%s\">%n", width(), height, width(), height, FONT));
        svg.append("<title>").append(Layout.escape(title)).append("</title>\n");
        svg.append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\">"
                + "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n");
        svg.append(String.format("<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>%n", width(), height));
        List<String> heads = new ArrayList<>();
        for (int i = 0; i < lanes.size(); i++) {
            heads.add(String.format("<rect x=\"%d\" y=\"12\" width=\"170\" height=\"32\" rx=\"4\" fill=\"#eef3fb\" stroke=\"#6b8cc7\"/>"
                    + "<text x=\"%d\" y=\"33\" font-size=\"13\" text-anchor=\"middle\">%s</text>"
                    + "<line x1=\"%d\" y1=\"44\" x2=\"%d\" y2=\"%d\" stroke=\"#bbb\" stroke-dasharray=\"4 4\"/>%n",
                    x(i) - 85, x(i), Layout.escape(lanes.get(i)), x(i), x(i), height - 6));
        }
        heads.forEach(svg::append);
        svg.append(steps);
        return svg.append("</svg>\n").toString();
    }
}
