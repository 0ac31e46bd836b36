package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.chrome.ChromeDriver;

/** The site as a reader meets it: built from the repository, every page loaded in headless Chromium. */
class SiteInBrowserTest {
    private static ChromeDriver browser;

    @BeforeAll
    static void startBrowser() {
        browser = Browser.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    @DisplayName("every page of the documentation loads, lists every page, and has no broken link, anchor or image")
    void everyPageWorks(@TempDir Path site) throws Exception {
        List<Page> pages = new SiteBuilder(Repository.root()).build(site);

        SiteChecker.Report report = new SiteChecker(browser).check(site, pages.stream().map(Page::output).toList());

        System.out.printf("site check: %d pages, %d links to the site (%d with a fragment), %d images, %d external links not fetched%s%n",
                report.pages(), report.links(), report.fragments(), report.images(), report.external().size(),
                report.external().isEmpty() ? "" : ": " + String.join(" ", report.external()));
        assertThat(report.problems()).as("broken links, anchors and images").isEmpty();
        assertThat(pages).extracting(Page::output).contains("index.html", "docs/index.html", "docs/http.html");
        assertThat(report.pages()).isEqualTo(pages.size());
        assertThat(report.fragments()).as("links with a fragment were checked").isPositive();
    }

    @Test
    @DisplayName("the check names each broken link, missing anchor and image that did not load, and lists external links")
    void brokenThingsAreReported(@TempDir Path repository, @TempDir Path site) throws Exception {
        Files.createDirectories(repository.resolve("docs"));
        Files.writeString(repository.resolve("README.md"), """
                # Home

                [fine](docs/a.md) [fine anchor](docs/a.md#section-one) [lost anchor](docs/a.md#nowhere)
                [lost page](docs/gone.md) [elsewhere](https://example.org/)

                ![shown](docs/dot.svg) ![missing](docs/absent.svg)
                """);
        Files.writeString(repository.resolve("docs/README.md"), "# Docs\n\n[A](a.md)\n");
        Files.writeString(repository.resolve("docs/a.md"), "# A\n\n## Section one\n\n[home](../README.md#home)\n");
        Files.writeString(repository.resolve("docs/dot.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"/>");
        List<Page> pages = new SiteBuilder(repository).build(site);

        SiteChecker.Report report = new SiteChecker(browser).check(site, pages.stream().map(Page::output).toList());

        assertThat(report.problems()).containsExactlyInAnyOrder(
                "index.html: link to docs/a.html#nowhere: no element with id 'nowhere' there",
                "index.html: link to docs/gone.html: no such page or file",
                "index.html: image 'docs/absent.svg' did not load");
        assertThat(report.external()).containsExactly("https://example.org/");
        assertThat(report.images()).isEqualTo(2);
        assertThat(Files.exists(site.resolve("docs/dot.svg"))).as("an image beside a page is copied").isTrue();
    }
}
