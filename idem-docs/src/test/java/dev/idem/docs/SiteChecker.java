package dev.idem.docs;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * Loads every page of a built site in a real browser and checks what a reader would click or see:
 * each link to a file of the site leads to a page or file that exists, each fragment to an element
 * with that id on the page it names, each image has loaded, each page's navigation (the header's home
 * link and the sidebar) lists every page, and no page is wider than the window, so none scrolls
 * sideways (the browser's window is 1280 px wide). External links are collected, not fetched (the
 * build has no internet).
 */
final class SiteChecker {
    /** What the browser sees of one page once it has loaded (images included). */
    private static final String READ_PAGE = """
            const hrefs = sel => Array.from(document.querySelectorAll(sel)).map(a => a.href);
            return {
              title: document.title,
              links: hrefs('a[href]'),
              navigation: hrefs('header.site > a[href], nav.sidebar a[href]'),
              overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
              ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id)
                  .concat(Array.from(document.querySelectorAll('a[name]')).map(a => a.name)),
              images: Array.from(document.images).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])
            };""";

    private final WebDriver browser;

    SiteChecker(WebDriver browser) {
        this.browser = browser;
    }

    /** What the check found; {@link #problems} is empty for a site without a broken link, anchor or image. */
    record Report(int pages, int links, int fragments, int images, Set<String> external, List<String> problems) {
    }

    private record Loaded(String title, List<String> links, List<String> navigation, long overflow, Set<String> ids, List<List<Object>> images) {
    }

    /** Checks the pages at {@code outputs} (site-relative paths) of the site in {@code site}. */
    Report check(Path site, List<String> outputs) throws Exception {
        Path root = site.toRealPath();
        Map<Path, Loaded> pages = new LinkedHashMap<>();
        for (String output : outputs) {
            pages.put(root.resolve(output), load(root.resolve(output)));
        }
        List<String> problems = new ArrayList<>();
        Set<String> external = new LinkedHashSet<>();
        int links = 0;
        int fragments = 0;
        int images = 0;
        for (Map.Entry<Path, Loaded> page : pages.entrySet()) {
            String name = root.relativize(page.getKey()).toString();
            Loaded loaded = page.getValue();
            if (loaded.title().isBlank()) {
                problems.add(name + ": did not load as a page (no title)");
            }
            if (loaded.overflow() > 0) {
                problems.add(name + ": scrolls sideways: " + loaded.overflow() + " px wider than the window");
            }
            for (String href : loaded.links()) {
                URI uri = new URI(href);
                if (!"file".equals(uri.getScheme())) {
                    external.add(href);
                    continue;
                }
                links++;
                if (uri.getFragment() != null && !uri.getFragment().isEmpty()) {
                    fragments++;
                }
                checkLink(root, pages, name, uri).ifPresent(problems::add);
            }
            for (List<Object> image : loaded.images()) {
                images++;
                if (!Boolean.TRUE.equals(image.get(1))) {
                    problems.add(name + ": image '" + image.get(0) + "' did not load");
                }
            }
            checkNavigation(root, pages.keySet(), name, loaded).forEach(problems::add);
        }
        return new Report(pages.size(), links, fragments, images, external, problems);
    }

    private Loaded load(Path page) {
        browser.get(page.toUri().toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> read = (Map<String, Object>) ((JavascriptExecutor) browser).executeScript(READ_PAGE);
        @SuppressWarnings("unchecked")
        Loaded loaded = new Loaded((String) read.get("title"), (List<String>) read.get("links"), (List<String>) read.get("navigation"),
                ((Number) read.get("overflow")).longValue(),
                new LinkedHashSet<>((List<String>) read.get("ids")), (List<List<Object>>) read.get("images"));
        return loaded;
    }

    private static Optional<String> checkLink(Path root, Map<Path, Loaded> pages, String from, URI link)
            throws URISyntaxException {
        Path target = Path.of(new URI(link.getScheme(), link.getSchemeSpecificPart(), null)).normalize();
        String shown = target.startsWith(root) ? root.relativize(target).toString() : target.toString();
        String fragment = link.getFragment();
        if (!target.startsWith(root)) {
            return Optional.of(from + ": link to " + shown + " leaves the site");
        }
        Loaded page = pages.get(target);
        if (page == null) {
            return Files.isRegularFile(target) ? Optional.empty()
                    : Optional.of(from + ": link to " + shown + ": no such page or file");
        }
        if (fragment != null && !fragment.isEmpty() && !page.ids().contains(fragment)) {
            return Optional.of(from + ": link to " + shown + "#" + fragment + ": no element with id '" + fragment + "' there");
        }
        return Optional.empty();
    }

    private static List<String> checkNavigation(Path root, Set<Path> all, String name, Loaded loaded) throws URISyntaxException {
        Set<Path> listed = new LinkedHashSet<>();
        for (String href : loaded.navigation()) {
            URI uri = new URI(href);
            if ("file".equals(uri.getScheme())) {
                listed.add(Path.of(new URI(uri.getScheme(), uri.getSchemeSpecificPart(), null)).normalize());
            }
        }
        return all.stream().filter(p -> !listed.contains(p))
                .map(p -> name + ": the navigation does not list " + root.relativize(p)).toList();
    }
}
