package dev.idem.docs;

import java.util.List;

/**
 * The frame around every page: a header with the home link and the search box, a sidebar listing
 * every page but the home page in reading order (the documentation index first; the current one
 * marked), the rendered Markdown, and links to the previous and next page. All links are relative, so
 * the site works from {@code file://} as well as from any web server; the search's scripts are files
 * of the site ({@link SearchIndex}).
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
                <script src="%s" defer></script>
                <script src="%s" defer></script>
                </head>
                <body data-root="%s">
                <header class="site"><a href="%s">%s</a> <span>exactly-once effects over at-least-once delivery</span>
                <div class="search" role="search"><input type="search" id="search" placeholder="Search the docs ( / )" aria-label="Search the documentation" autocomplete="off">
                <ol id="search-results" hidden></ol></div></header>
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
                page.linkTo(SearchIndex.FILE),
                page.linkTo(SearchIndex.SCRIPT),
                escape(toRoot(page)),
                page.linkTo(pages.get(0).output()), SITE_NAME,
                sidebar(page),
                body,
                index > 0 ? pagerLink(page, pages.get(index - 1), "prev", "← " + pages.get(index - 1).title()) : "",
                index < pages.size() - 1 ? pagerLink(page, pages.get(index + 1), "next", pages.get(index + 1).title() + " →") : "");
    }

    /** The relative URL from the page's folder to the top of the site: "" or "../" per folder. */
    private static String toRoot(Page page) {
        return "../".repeat((int) page.folder().chars().filter(c -> c == '/').count());
    }

    private String sidebar(Page current) {
        StringBuilder items = new StringBuilder();
        // The home page is the header's link; the sidebar starts at the documentation index, so it has one index.
        for (Page p : pages.subList(Math.min(1, pages.size() - 1), pages.size())) {
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
