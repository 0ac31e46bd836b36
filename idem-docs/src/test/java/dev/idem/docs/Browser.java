package dev.idem.docs;

import dev.idem.testing.RealServices;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium driven through chromedriver, both from the machine (Debian's
 * {@code chromium} and {@code chromium-driver}). The browser is a required service of the build like a
 * database: without it the calling test is skipped, or fails when {@code IDEM_REQUIRE_SERVICES} is
 * {@code all} or names {@code chromium}.
 */
final class Browser {
    static final String SERVICE = "chromium";
    /**
     * Selenium warns when it has no DevTools binding for the browser's version; the check uses
     * WebDriver only, so that warning says nothing. Held here so that the setting is not collected.
     */
    private static final Logger DEVTOOLS = Logger.getLogger("org.openqa.selenium.devtools");

    static {
        DEVTOOLS.setLevel(Level.SEVERE);
    }

    private Browser() {
    }

    static ChromeDriver start() {
        Optional<Path> chromium = onPath("chromium", "chromium-browser");
        Optional<Path> driver = onPath("chromedriver");
        if (chromium.isEmpty() || driver.isEmpty()) {
            RealServices.unavailable(SERVICE, (chromium.isEmpty() ? "chromium" : "chromedriver")
                    + " is not on the PATH (Debian: apt-get install chromium chromium-driver)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.get().toFile());
        // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--allow-file-access-from-files", "--window-size=1280,900");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.get().toFile())
                .usingAnyFreePort().build();
        ChromeDriver browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return browser;
    }

    private static Optional<Path> onPath(String... names) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin");
        return Stream.of(names)
                .flatMap(name -> Stream.of(path.split(File.pathSeparator)).map(dir -> Path.of(dir, name)))
                .filter(Files::isExecutable)
                .findFirst();
    }
}
