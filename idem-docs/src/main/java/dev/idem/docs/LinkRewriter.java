package dev.idem.docs;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Image;
import org.commonmark.node.Link;

/**
 * Points one page's links at the site instead of the Markdown: a link to another page becomes a link
 * to its HTML file (the fragment kept); a link or image to any other file of the repository is kept as
 * written and the file is noted as an asset, to be copied to the same place in the site. Absolute URLs
 * and links within the page are left alone. A link to a Markdown file that is not a page is turned into
 * the {@code .html} it would have been, so that the browser check reports it as broken.
 */
final class LinkRewriter extends AbstractVisitor {
    private final Pages pages;
    private final Page page;
    private final Set<Path> assets = new LinkedHashSet<>();

    LinkRewriter(Pages pages, Page page) {
        this.pages = pages;
        this.page = page;
    }

    /** Repository-relative files the page links or shows that are not pages. */
    Set<Path> assets() {
        return assets;
    }

    @Override
    public void visit(Link link) {
        link.setDestination(rewrite(link.getDestination()));
        visitChildren(link);
    }

    @Override
    public void visit(Image image) {
        image.setDestination(rewrite(image.getDestination()));
        visitChildren(image);
    }

    private String rewrite(String written) {
        Destination d = Destination.parse(written);
        if (!d.isRelative()) {
            return written;
        }
        Path target = d.resolveFrom(page.source().getParent());
        return pages.bySource(target)
                .map(p -> d.withFragment(page.linkTo(p.output())))
                .orElseGet(() -> notAPage(d, target));
    }

    private String notAPage(Destination d, Path target) {
        if (d.path().endsWith(".md")) {
            return d.withFragment(d.path().substring(0, d.path().length() - ".md".length()) + ".html");
        }
        assets.add(target);
        return d.raw();
    }
}
