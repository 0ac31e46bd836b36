package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The build-time highlighter and the search index: what a page's code and the search script receive. */
class HighlighterTest {
    @Test
    @DisplayName("Java: keywords, strings, comments, annotations and types get their spans; the text stays escaped")
    void java() {
        String html = Highlighter.highlight("java", "@Idempotent\nreturn \"<a>\"; // done\nList<String> x = 42;");

        assertThat(html).contains("<span class=\"a\">@Idempotent</span>", "<span class=\"k\">return</span>",
                "<span class=\"s\">&quot;&lt;a&gt;&quot;</span>", "<span class=\"c\">// done</span>", "<span class=\"t\">List</span>&lt;",
                "<span class=\"n\">42</span>");
        assertThat(html.replaceAll("<span class=\"[a-z]\">|</span>", "")).isEqualTo(Layout.escape("@Idempotent\nreturn \"<a>\"; // done\nList<String> x = 42;"));
    }

    @Test
    @DisplayName("SQL keywords in any case, XML tags and attributes, and a keyword inside a string stays a string")
    void sqlAndXml() {
        assertThat(Highlighter.highlight("sql", "create table t (s text default 'select')"))
                .contains("<span class=\"k\">create</span>", "<span class=\"s\">'select'</span>");
        assertThat(Highlighter.highlight("xml", "<dependency scope=\"test\"><!-- x --></dependency>"))
                .contains("<span class=\"t\">&lt;dependency</span>", "<span class=\"a\">scope</span>", "<span class=\"s\">&quot;test&quot;</span>",
                        "<span class=\"c\">&lt;!-- x --&gt;</span>");
    }

    @Test
    @DisplayName("a block without a language that starts like a command is shell; an unknown language is only escaped")
    void languages() {
        assertThat(Highlighter.language("", "./idem lab --list\n")).contains("shell");
        assertThat(Highlighter.language(null, "scenario  client\n")).isEmpty();
        assertThat(Highlighter.language("text", "mvn verify")).isEmpty();
        assertThat(Highlighter.language("Java", "x")).contains("java");
        assertThat(Highlighter.highlight("brainfuck", "<+>")).isEqualTo("&lt;+&gt;");
    }

    @Test
    @DisplayName("the search index has an entry per section with its anchor, and its strings cannot end the script")
    void searchIndex() {
        SearchIndex index = new SearchIndex();
        Page page = new Page(Path.of("docs/a.md"), "docs/a.html", "A page");
        index.add(page, "<h1>A page</h1>\n<p>intro &amp; more</p>\n<h2 id=\"leases\">Leases</h2>\n<p>a <code>&lt;/script&gt;</code> lease</p>\n");

        assertThat(index.size()).isEqualTo(2);
        String js = index.script();
        assertThat(js).startsWith("window.IDEM_SEARCH_INDEX = [")
                .contains("{\"p\":\"A page\",\"s\":\"A page\",\"u\":\"docs/a.html\",\"x\":\"intro & more\"}")
                .contains("\"u\":\"docs/a.html#leases\"", "\\u003c/script>")
                .doesNotContain("</script>");
    }
}
