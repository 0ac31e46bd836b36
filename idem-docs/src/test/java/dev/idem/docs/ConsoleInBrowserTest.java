package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.docs.console.ConsoleApplication;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxRelay;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import java.util.function.BooleanSupplier;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The web console in headless Chromium against a running application on PostgreSQL: an operator finds
 * a stuck key and releases it, replays a quarantined message and sees it processed once, and watches
 * an outbox backlog drain. With {@code -Didem.docs.write=true} the screenshots replace
 * docs/images/console-*.png, which docs/operations.md shows; otherwise they go to target/.
 */
class ConsoleInBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static ChromeDriver browser;
    private static TestDatabase db;
    private static ConfigurableApplicationContext app;
    private static String console;

    @BeforeAll
    static void start() throws Exception {
        browser = Browser.start();
        db = RealServices.postgres();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE ledger (message_id text PRIMARY KEY)");
        }
        SpringApplication application = new SpringApplication(ConsoleApplication.class);
        DataSource dataSource = db.dataSource();
        application.addInitializers(context -> context.getBeanFactory().registerSingleton("dataSource", dataSource));
        app = application.run("--server.port=0", "--server.address=127.0.0.1", "--idem.admin.console.enabled=true",
                "--idem.inbox.max-attempts=1", "--idem.durability-check=warn", "--spring.main.banner-mode=off");
        console = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort() + "/idem-admin/";
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (app != null) {
            app.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    @DisplayName("an operator finds a stuck key in the console and releases it, after confirming")
    void findsAStuckKeyAndReleasesIt() throws Exception {
        JdbcIdempotencyStore store = app.getBean(JdbcIdempotencyStore.class);
        RecordKey stuck = new RecordKey(Scope.of("merchant-42", "POST /payments"), IdempotencyKey.of("pay-7f3a9c"));
        ClaimOutcome claimed = store.claim(new ClaimRequest(stuck, Fingerprint.builder().part("body", "a").build(), Duration.ofMillis(200),
                Duration.ofHours(24)));
        assertThat(claimed).isInstanceOf(ClaimOutcome.Acquired.class);
        Thread.sleep(400);

        browser.get(console + "#records");
        WebElement row = waitFor(By.cssSelector("#stuck-table tr[data-key='pay-7f3a9c']"));
        assertThat(row.getText()).contains("merchant-42").contains(String.valueOf(((ClaimOutcome.Acquired) claimed).token()));
        screenshot("console-records.png");

        row.findElement(By.cssSelector("button.release")).click();
        waitFor(By.cssSelector("dialog#confirm[open]"));
        assertThat(browser.findElement(By.id("confirm-text")).getText()).contains("pay-7f3a9c");
        screenshot("console-release-confirm.png");
        browser.findElement(By.id("confirm-ok")).click();

        until("the console says it released the key", () -> text(By.id("message")).equals("Released."));
        assertThat(store.find(stuck)).as("released in the store").isEmpty();
        until("the key leaves the list", () -> browser.findElements(By.cssSelector("#stuck-table tr[data-key='pay-7f3a9c']")).isEmpty());
    }

    @Test
    @DisplayName("an operator replays a quarantined message from the console and it is processed once")
    void replaysAQuarantinedMessageOnce() throws Exception {
        Inbox inbox = app.getBean(Inbox.class);
        InboxOutcome failed = inbox.process(ConsoleApplication.CONSUMER, InboxMessage.of("msg-1001"), (c, m) -> {
            throw new IllegalStateException("ledger closed for the night");
        });
        assertThat(failed.status()).isEqualTo(InboxOutcome.Status.QUARANTINED);

        browser.get(console + "#inbox");
        WebElement row = waitFor(By.cssSelector("div[data-consumer='payments'] tr[data-message='msg-1001']"));
        assertThat(row.getText()).contains(IllegalStateException.class.getName());
        screenshot("console-inbox.png");

        row.findElement(By.cssSelector("button.replay")).click();
        waitFor(By.cssSelector("dialog#confirm[open]"));
        browser.findElement(By.id("confirm-ok")).click();
        until("the console says the replay processed it", () -> text(By.id("message")).equals("Replayed: msg-1001 PROCESSED"));
        assertThat(ledger()).containsExactly("msg-1001");
        assertThat(inbox.quarantine().list(ConsoleApplication.CONSUMER, 10)).isEmpty();
        assertThat(inbox.process(ConsoleApplication.CONSUMER, "msg-1001", ConsoleApplication.LEDGER).status())
                .as("a redelivery after the replay").isEqualTo(InboxOutcome.Status.DUPLICATE);
        assertThat(ledger()).as("processed once").containsExactly("msg-1001");
    }

    @Test
    @DisplayName("an operator watches an outbox backlog drain once the relay runs")
    void watchesAnOutboxBacklogDrain() throws Exception {
        Outbox outbox = app.getBean(Outbox.class);
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 1; i <= 5; i++) {
                outbox.append(c, "order", "o-" + i, "OrderPlaced", ("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8));
            }
            c.commit();
        }
        browser.get(console + "#outbox");
        until("the console shows the backlog of 5", () -> "5".equals(attribute(By.cssSelector("div[data-outbox='orders'] .pending"), "data-pending")));
        screenshot("console-outbox.png");

        List<String> published = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (OutboxRelay relay = OutboxRelay.builder(outbox, m -> published.add(m.aggregateId())).pollInterval(Duration.ofMillis(100))
                .build().start()) {
            until("the console shows the backlog drained", () -> "0".equals(attribute(By.cssSelector("div[data-outbox='orders'] .pending"),
                    "data-pending")));
        }
        assertThat(published).containsExactlyInAnyOrder("o-1", "o-2", "o-3", "o-4", "o-5");
        screenshot("console-outbox-drained.png");
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private static WebElement waitFor(By what) throws InterruptedException {
        until("the console shows " + what, () -> !browser.findElements(what).isEmpty() && browser.findElements(what).get(0).isDisplayed());
        return browser.findElement(what);
    }

    /** Polls the page (which refreshes itself) until {@code condition} holds, failing after {@link #WAIT}. */
    private static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (NoSuchElementException | StaleElementReferenceException e) {
                // The console re-rendered the element between the find and the read: look again.
            }
            assertThat(System.nanoTime()).as("waited %s for %s", WAIT, what).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static String text(By what) {
        return browser.findElement(what).getText();
    }

    private static String attribute(By what, String name) {
        return browser.findElement(what).getAttribute(name);
    }

    private static void screenshot(String name) throws Exception {
        Path folder = Boolean.getBoolean(ConfigurationReferenceTest.WRITE) ? Repository.root().resolve("docs/images")
                : Path.of("target/screenshots");
        Files.createDirectories(folder);
        Files.write(folder.resolve(name), browser.getScreenshotAs(OutputType.BYTES));
    }

    private static List<String> ledger() throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT message_id FROM ledger ORDER BY message_id")) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }
}
