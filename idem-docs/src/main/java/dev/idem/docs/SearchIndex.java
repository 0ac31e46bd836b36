package dev.idem.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The site's search index, made when the site is built: one entry per section of every page (the
 * text under a heading, up to the next heading of level 1–3), with the page's title, the heading, the
 * link to the heading's anchor and the section's plain text. Written as {@code search-index.js}, a
 * JSON array assigned to one global, because a page opened from {@code file://} may load a script
 * beside it but may not fetch a JSON file; {@code search.js} searches it in the browser.
 */
final class SearchIndex {
    static final String FILE = "search-index.js";
    static final String SCRIPT = "search.js";

    private static final Pattern HEADING = Pattern.compile("<h([1-3])(?: id=\"([^\"]*)\")?>(.*?)</h\\1>", Pattern.DOTALL);
    private static final Pattern TAG = Pattern.compile("<[^>]+>");
    private static final Pattern SPACE = Pattern.compile("\\s+");

    private record Entry(String page, String section, String url, String text) {
    }

    private final List<Entry> entries = new ArrayList<>();

    /** Adds the sections of one page, from its rendered body. */
    void add(Page page, String body) {
        Matcher m = HEADING.matcher(body);
        String section = page.title();
        String anchor = null;
        int from = 0;
        while (m.find()) {
            addSection(page, section, anchor, body.substring(from, m.start()));
            section = text(m.group(3));
            anchor = m.group(1).equals("1") ? null : m.group(2);
            from = m.end();
        }
        addSection(page, section, anchor, body.substring(from));
    }

    private void addSection(Page page, String section, String anchor, String html) {
        String text = text(html);
        if (text.isEmpty() && anchor == null) {
            return;
        }
        entries.add(new Entry(page.title(), section, anchor == null ? page.output() : page.output() + "#" + anchor, text));
    }

    int size() {
        return entries.size();
    }

    /** The script that defines {@code IDEM_SEARCH_INDEX}: {@code [{"p": page, "s": section, "u": site-relative link, "x": text}, …]}. */
    String script() {
        StringBuilder js = new StringBuilder("window.IDEM_SEARCH_INDEX = [\n");
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            js.append("{\"p\":").append(json(e.page())).append(",\"s\":").append(json(e.section())).append(",\"u\":").append(json(e.url()))
                    .append(",\"x\":").append(json(e.text())).append('}').append(i < entries.size() - 1 ? ",\n" : "\n");
        }
        return js.append("];\n").toString();
    }

    /** Plain text of rendered HTML: tags dropped, the five entities the renderer writes decoded, white space collapsed. */
    static String text(String html) {
        String plain = TAG.matcher(html).replaceAll(" ");
        plain = plain.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&");
        return SPACE.matcher(plain).replaceAll(" ").trim();
    }

    static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                // "</script>" and U+2028/2029 inside a script: escaped so the string cannot end the script or the line.
                case '<' -> out.append("\\u003c");
                case '\u2028' -> out.append("\\u2028");
                case '\u2029' -> out.append("\\u2029");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
