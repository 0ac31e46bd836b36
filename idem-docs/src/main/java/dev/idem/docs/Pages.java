package dev.idem.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.Heading;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;

/**
 * The pages of the site, in reading order: the repository's README (the home page), the
 * documentation index {@code docs/README.md}, then the pages in the order that index links them,
 * then any page it does not link, by name. The output tree mirrors the sources ({@code docs/x.md}
 * becomes {@code docs/x.html}), so relative links to files beside a page stay valid.
 */
final class Pages {
    static final Path HOME = Path.of("README.md");
    static final Path DOCS = Path.of("docs");
    static final Path DOCS_INDEX = DOCS.resolve("README.md");

    private final Map<Path, Page> bySource;

    private Pages(Map<Path, Page> bySource) {
        this.bySource = bySource;
    }

    /** Reads the titles and the reading order from the Markdown under {@code root}. */
    static Pages discover(Path root, Parser parser) {
        if (!Files.isRegularFile(root.resolve(HOME)) || !Files.isRegularFile(root.resolve(DOCS_INDEX))) {
            throw new IllegalArgumentException(root.toAbsolutePath().normalize()
                    + " is not the repository's root: it needs README.md and docs/README.md");
        }
        List<Path> sources = new ArrayList<>(List.of(HOME, DOCS_INDEX));
        List<Path> docs = docPages(root);
        linkedPages(parse(root, DOCS_INDEX, parser), DOCS).stream()
                .filter(docs::contains).filter(p -> !sources.contains(p)).forEach(sources::add);
        docs.stream().filter(p -> !sources.contains(p)).forEach(sources::add);
        Map<Path, Page> pages = new LinkedHashMap<>();
        for (Path source : sources) {
            pages.put(source, new Page(source, outputOf(source), title(parse(root, source, parser), source)));
        }
        return new Pages(pages);
    }

    /** Every page, in reading order. */
    List<Page> inOrder() {
        return List.copyOf(bySource.values());
    }

    /** The page made from {@code source} (a normalised repository-relative path), if it is one. */
    Optional<Page> bySource(Path source) {
        return Optional.ofNullable(bySource.get(source));
    }

    static Node parse(Path root, Path source, Parser parser) {
        try {
            return parser.parse(Files.readString(root.resolve(source)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
    }

    private static List<Path> docPages(Path root) {
        try (Stream<Path> files = Files.list(root.resolve(DOCS))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".md"))
                    .map(f -> DOCS.resolve(f.getFileName())).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + DOCS, e);
        }
    }

    /** The Markdown files a document links, in the order of their first link, resolved against {@code folder}. */
    private static List<Path> linkedPages(Node document, Path folder) {
        List<Path> linked = new ArrayList<>();
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(Link link) {
                Destination d = Destination.parse(link.getDestination());
                if (d.isRelative() && d.path().endsWith(".md")) {
                    Path target = d.resolveFrom(folder);
                    if (!linked.contains(target)) {
                        linked.add(target);
                    }
                }
                visitChildren(link);
            }
        });
        return linked;
    }

    private static String outputOf(Path source) {
        String name = source.getFileName().toString();
        String html = name.equals("README.md") ? "index.html" : name.substring(0, name.length() - ".md".length()) + ".html";
        Path folder = source.getParent();
        return folder == null ? html : folder.toString().replace('\\', '/') + "/" + html;
    }

    private static String title(Node document, Path source) {
        StringBuilder title = new StringBuilder();
        document.accept(new AbstractVisitor() {
            private boolean inTitle;

            @Override
            public void visit(Heading heading) {
                if (heading.getLevel() == 1 && title.isEmpty()) {
                    inTitle = true;
                    visitChildren(heading);
                    inTitle = false;
                }
            }

            @Override
            public void visit(Text text) {
                if (inTitle) {
                    title.append(text.getLiteral());
                }
            }

            @Override
            public void visit(Code code) {
                if (inTitle) {
                    title.append(code.getLiteral());
                }
            }
        });
        return title.isEmpty() ? source.getFileName().toString() : title.toString();
    }
}
