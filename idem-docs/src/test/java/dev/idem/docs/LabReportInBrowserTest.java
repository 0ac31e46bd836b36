package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.demo.lab.FixtureReports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The lab's HTML report, made from a fixture with every row of the catalogue, as a reader sees it
 * in headless Chromium at 1280 px: no sideways scrolling, no table or chart cut off, no label
 * clipped. With {@code -Didem.docs.write=true} it is saved as docs/images/lab-report.png.
 */
class LabReportInBrowserTest {
    /** Every table and chart must lie within the page's width; every chart's text within its chart. */
    private static final String MEASURE = """
            const page = document.documentElement;
            const out = [];
            if (page.scrollWidth > page.clientWidth) {
              out.push('the page is ' + (page.scrollWidth - page.clientWidth) + ' px wider than the window');
            }
            document.querySelectorAll('table, svg').forEach((e, i) => {
              const r = e.getBoundingClientRect();
              if (r.right > page.clientWidth + 0.5) {
                out.push(e.tagName + ' ' + i + ' ends at ' + Math.round(r.right) + ' px, past the window');
              }
              if (e.tagName === 'TABLE' && e.scrollWidth > e.clientWidth) {
                out.push('table ' + i + ' scrolls sideways inside itself');
              }
            });
            document.querySelectorAll('svg').forEach((svg, i) => {
              const box = svg.getBoundingClientRect();
              svg.querySelectorAll('text').forEach(t => {
                const r = t.getBoundingClientRect();
                if (r.left < box.left - 0.5 || r.right > box.right + 0.5) {
                  out.push('svg ' + i + ': label "' + t.textContent + '" is clipped');
                }
              });
            });
            return out;""";

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
    @DisplayName("the lab's report with every row fits a 1280 px window: no sideways scrolling, nothing cut off, no label clipped")
    void reportFits(@TempDir Path folder) throws Exception {
        Path report = folder.resolve("report.html");
        Files.writeString(report, FixtureReports.html());
        browser.get(report.toUri().toString());

        @SuppressWarnings("unchecked")
        List<String> problems = (List<String>) ((JavascriptExecutor) browser).executeScript(MEASURE);

        assertThat(Screenshots.take(browser, "lab-report")).isPositive();
        assertThat(browser.getTitle()).isEqualTo("idem lab");
        assertThat(problems).as("what does not fit at 1280 px").isEmpty();
    }
}
