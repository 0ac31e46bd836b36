package dev.idem.docs;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Node;
import org.commonmark.renderer.NodeRenderer;
import org.commonmark.renderer.html.HtmlWriter;

/**
 * Renders a fenced code block as CommonMark does ({@code <pre><code class="language-…">}), with its
 * text highlighted by {@link Highlighter} when its language is one the highlighter knows.
 */
final class CodeBlockRenderer implements NodeRenderer {
    private final HtmlWriter html;

    CodeBlockRenderer(HtmlWriter html) {
        this.html = html;
    }

    @Override
    public Set<Class<? extends Node>> getNodeTypes() {
        return Set.of(FencedCodeBlock.class);
    }

    @Override
    public void render(Node node) {
        FencedCodeBlock block = (FencedCodeBlock) node;
        String code = block.getLiteral();
        Optional<String> language = Highlighter.language(block.getInfo(), code);
        html.line();
        html.tag("pre");
        html.tag("code", language.map(l -> Map.of("class", "language-" + l)).orElse(Map.of()));
        html.raw(language.map(l -> Highlighter.highlight(l, code)).orElseGet(() -> Layout.escape(code)));
        html.tag("/code");
        html.tag("/pre");
        html.line();
    }
}
