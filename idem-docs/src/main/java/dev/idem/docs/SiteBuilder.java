package dev.idem.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.commonmark.Extension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.ext.heading.anchor.HeadingAnchorExtension;
import org.commonmark.node.Node;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

/**
 * Builds the documentation site: README.md becomes {@code index.html}, each {@code docs/*.md} a page
 * beside it under {@code docs/}, every page framed by the same navigation ({@link Layout}), with
 * links between pages pointing at the HTML, the files pages link or show (images) copied, and one
 * stylesheet. CommonMark with GitHub's tables and heading ids, so that every anchor a page links on
 * a code host exists here too.
 *
 * <p>{@code ./idem docs} runs {@link #main}: {@code [--root <repository>] [--out <folder>]}, by default
 * the current folder and {@code data/site}.
 */
public final class SiteBuilder {
    /** Written into the output folder, so that a rebuild only ever clears a folder this class made. */
    static final String MARKER = ".idem-site";

    private final Path root;
    private final Parser parser;
    private final HtmlRenderer renderer;

    public SiteBuilder(Path root) {
        this.root = Objects.requireNonNull(root, "root is null");
        List<Extension> extensions = List.of(TablesExtension.create(), HeadingAnchorExtension.create());
        this.parser = Parser.builder().extensions(extensions).build();
        this.renderer = HtmlRenderer.builder().extensions(extensions)
                .nodeRendererFactory(context -> new CodeBlockRenderer(context.getWriter())).build();
    }

    public static void main(String[] args) {
        try {
            Options options = Options.parse(args);
            if (options.help()) {
                System.out.println(Options.USAGE);
                return;
            }
            List<Page> pages = new SiteBuilder(options.root()).build(options.out());
            System.out.println("idem docs: " + pages.size() + " pages in " + options.out() + "; open "
                    + options.out().resolve(pages.get(0).output()));
        } catch (IllegalArgumentException | IOException | UncheckedIOException e) {
            System.err.println("idem docs: " + e.getMessage());
            System.exit(1);
        }
    }

    /**
     * Writes the site into {@code out}, which must be empty, absent, or a site built before (its
     * content is then replaced). Returns the pages, in reading order.
     */
    public List<Page> build(Path out) throws IOException {
        Pages pages = Pages.discover(root, parser);
        Layout layout = new Layout(pages.inOrder());
        clear(out);
        List<Path> assets = new ArrayList<>();
        SearchIndex search = new SearchIndex();
        for (Page page : pages.inOrder()) {
            Node document = Pages.parse(root, page.source(), parser);
            LinkRewriter links = new LinkRewriter(pages, page);
            document.accept(links);
            String body = renderer.render(document);
            search.add(page, body);
            write(out.resolve(page.output()), layout.render(page, body));
            assets.addAll(links.assets());
        }
        for (Path asset : assets) {
            copyAsset(asset, out);
        }
        for (String resource : List.of(Layout.STYLESHEET, SearchIndex.SCRIPT)) {
            try (InputStream in = SiteBuilder.class.getResourceAsStream(resource)) {
                Files.copy(Objects.requireNonNull(in, resource + " is missing from the class path"), out.resolve(resource),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.writeString(out.resolve(SearchIndex.FILE), search.script());
        return pages.inOrder();
    }

    private void copyAsset(Path asset, Path out) throws IOException {
        Path source = root.resolve(asset);
        // Only files of the repository: a path that climbs out of it, or is missing, stays a broken link for the browser check to report.
        if (asset.startsWith("..") || asset.isAbsolute() || !Files.isRegularFile(source)) {
            return;
        }
        Path target = out.resolve(asset);
        Files.createDirectories(target.getParent());
        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void clear(Path out) throws IOException {
        if (Files.isDirectory(out)) {
            boolean empty;
            try (Stream<Path> entries = Files.list(out)) {
                empty = entries.findAny().isEmpty();
            }
            if (!empty && !Files.exists(out.resolve(MARKER))) {
                throw new IllegalArgumentException(out + " is not empty and holds no site built before (no " + MARKER
                        + "); choose an empty or new folder");
            }
            try (Stream<Path> entries = Files.walk(out)) {
                for (Path p : entries.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(out)).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve(MARKER), "Built by ./idem docs; the whole folder is replaced on the next build.\n");
    }

    private static void write(Path file, String html) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, html);
    }

    /** The command line of {@link #main}. */
    record Options(Path root, Path out, boolean help) {
        static final String USAGE = """
                Usage: ./idem docs [--out <folder>] [--root <repository>]
                Renders README.md and docs/*.md into a browsable site.
                  --out <folder>       where the site goes (default data/site); replaced on every build
                  --root <repository>  the repository to read (default: the current folder)""";

        static Options parse(String[] args) {
            Path root = Path.of(".");
            Path out = Path.of("data", "site");
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--help", "-h" -> {
                        return new Options(root, out, true);
                    }
                    case "--out" -> out = Path.of(value(args, ++i, "--out"));
                    case "--root" -> root = Path.of(value(args, ++i, "--root"));
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'\n" + USAGE);
                }
            }
            return new Options(root, out, false);
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length || args[i].isBlank()) {
                throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
            }
            return args[i];
        }
    }
}
