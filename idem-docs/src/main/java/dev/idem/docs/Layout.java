package dev.idem.docs;

import java.util.List;

/**
 * The frame around every page: a header, a sidebar listing every page in reading order (the current
 * one marked), the rendered Markdown, and links to the previous and next page. All links are relative,
 * so the site works from {@code file://} as well as from any web server.
 */
final class Layout {
    static final String STYLESHEET = "site.css";
    private static final String SITE_NAME = "idem";

    private final List<Page> pages;

    Layout(List<Page> pages) {
        this.pages = List.copyOf(pages);
    }

    String render(Page page, String body) {
        int index = pages.indexOf(page);
        return """
                <!DOCTYPE html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>%s</title>
                <link rel="stylesheet" href="%s">
                </head>
                <body>
                <header class="site"><a href="%s">%s</a> <span>exactly-once effects over at-least-once delivery</span></header>
                <div class="frame">
                <nav class="sidebar" aria-label="pages">
                <ol>
                %s</ol>
                </nav>
                <main>
                %s
                <nav class="pager" aria-label="previous and next">%s%s</nav>
                </main>
                </div>
                </body>
                </html>
                """.formatted(
                escape(index == 0 ? SITE_NAME : page.title() + " · " + SITE_NAME),
                page.linkTo(STYLESHEET),
                page.linkTo(pages.get(0).output()), SITE_NAME,
                sidebar(page),
                body,
                index > 0 ? pagerLink(page, pages.get(index - 1), "prev", "← " + pages.get(index - 1).title()) : "",
                index < pages.size() - 1 ? pagerLink(page, pages.get(index + 1), "next", pages.get(index + 1).title() + " →") : "");
    }

    private String sidebar(Page current) {
        StringBuilder items = new StringBuilder();
        for (Page p : pages) {
            items.append("<li><a href=\"").append(escape(current.linkTo(p.output()))).append('"')
                    .append(p.equals(current) ? " aria-current=\"page\"" : "")
                    .append('>').append(escape(p.title())).append("</a></li>\n");
        }
        return items.toString();
    }

    private static String pagerLink(Page from, Page to, String rel, String label) {
        return "<a rel=\"" + rel + "\" href=\"" + escape(from.linkTo(to.output())) + "\">" + escape(label) + "</a>";
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
