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
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
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
        assertThat(report.problems()).as("no page scrolls sideways at 1280 px").noneMatch(p -> p.contains("scrolls sideways"));

        browser.get(site.resolve("docs/getting-started.html").toUri().toString());
        assertThat(Screenshots.take(browser, "getting-started")).isPositive();
        browser.get(site.resolve("docs/engine.html").toUri().toString());
        WebElement diagram = browser.findElement(By.cssSelector("img[src$='sequence-crash-and-resume.svg']"));
        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView({block: 'center'})", diagram);
        assertThat((Boolean) ((JavascriptExecutor) browser).executeScript("return arguments[0].naturalWidth > 0", diagram))
                .as("the crash-and-resume diagram loaded").isTrue();
        assertThat(Screenshots.take(browser, "diagram")).isPositive();
    }

    @Test
    @DisplayName("the search box finds a term from the prebuilt index, offline, and its first answer leads to the section")
    void searchFindsATerm(@TempDir Path site) throws Exception {
        new SiteBuilder(Repository.root()).build(site);
        browser.get(site.resolve("docs/index.html").toUri().toString());

        // The input handler runs synchronously on each key, so the list is complete when sendKeys returns.
        browser.findElement(By.id("search")).sendKeys("fencing token");
        List<WebElement> answers = browser.findElements(By.cssSelector("#search-results li a"));

        assertThat(answers).as("answers for 'fencing token'").isNotEmpty();
        assertThat(answers).extracting(a -> a.getAttribute("href")).anyMatch(h -> h.contains("docs/concepts.html#"));
        assertThat(browser.findElement(By.id("search-results")).isDisplayed()).isTrue();
        assertThat(browser.findElements(By.cssSelector("#search-results mark"))).extracting(WebElement::getText)
                .allMatch(t -> t.equalsIgnoreCase("fencing") || t.equalsIgnoreCase("token"));
        assertThat(Screenshots.take(browser, "search")).isPositive();

        String first = answers.get(0).getAttribute("href");
        answers.get(0).click();
        assertThat(browser.getCurrentUrl()).isEqualTo(first);

        browser.get(site.resolve("index.html").toUri().toString());
        browser.findElement(By.id("search")).sendKeys("qqzzxxnothing");
        assertThat(browser.findElements(By.cssSelector("#search-results li"))).extracting(WebElement::getText)
                .containsExactly("Nothing found for \u201cqqzzxxnothing\u201d");
    }

    @Test
    @DisplayName("a page wider than the 1280 px window is reported with how much wider it is")
    void aPageThatScrollsSidewaysIsReported(@TempDir Path repository, @TempDir Path site) throws Exception {
        Files.createDirectories(repository.resolve("docs"));
        Files.writeString(repository.resolve("README.md"), "# Home\n\n<div style=\"width: 3000px\">wide</div>\n");
        Files.writeString(repository.resolve("docs/README.md"), "# Docs\n\n```\n" + "x".repeat(600) + "\n```\n");
        List<Page> pages = new SiteBuilder(repository).build(site);

        SiteChecker.Report report = new SiteChecker(browser).check(site, pages.stream().map(Page::output).toList());

        assertThat(report.problems()).as("a long code line scrolls inside its block, a wide element widens the page")
                .singleElement().asString().startsWith("index.html: scrolls sideways: ").endsWith(" px wider than the window");
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
