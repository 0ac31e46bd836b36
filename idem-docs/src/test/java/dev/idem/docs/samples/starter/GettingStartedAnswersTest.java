package dev.idem.docs.samples.starter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.Sqlite;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * docs/getting-started.md's curl answers are what the sample application answers: the test sends the
 * page's requests (first call, replay, mismatch, in progress) and checks each documented status line,
 * header and body against the real response.
 */
class GettingStartedAnswersTest {
    private static final Pattern ANSWER = Pattern.compile("<!-- answer: ([a-z-]+) -->\n```text\n(.*?)\n```", Pattern.DOTALL);
    private static final String PAYMENT = "{\"amount\":100,\"currency\":\"EUR\"}";
    private static final String OTHER_PAYMENT = "{\"amount\":250,\"currency\":\"EUR\"}";

    @TempDir
    static Path data;
    private static ConfigurableApplicationContext app;
    private static URI base;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        app = SpringApplication.run(StarterSampleApplication.class,
                "--server.port=0", "--server.address=127.0.0.1", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
                "--spring.datasource.url=" + Sqlite.url(data.resolve("app.db")));
        base = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    @DisplayName("first call, replay, mismatch and in progress answer as docs/getting-started.md shows")
    void theDocumentedAnswersAreTheRealOnes() throws Exception {
        Map<String, String> documented = documentedAnswers();
        assertThat(documented).containsOnlyKeys("first-call", "replay", "mismatch", "in-progress");

        expect(documented, "first-call", post("order-1001", PAYMENT));
        expect(documented, "replay", post("order-1001", PAYMENT));
        expect(documented, "mismatch", post("order-1001", OTHER_PAYMENT));

        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        app.getBean(Payments.class).beforeNextCharge(() -> {
            entered.countDown();
            await(release);
        });
        CompletableFuture<HttpResponse<String>> held = CompletableFuture.supplyAsync(() -> postQuietly("order-1002", PAYMENT));
        assertThat(entered.await(30, TimeUnit.SECONDS)).as("the first request reached the handler").isTrue();
        expect(documented, "in-progress", post("order-1002", PAYMENT));
        release.countDown();
        assertThat(held.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(app.getBean(Payments.class).charged()).isEqualTo(2);
    }

    /** The documented status line, every documented header and the documented body (if any) are the response's. */
    private static void expect(Map<String, String> documented, String name, HttpResponse<String> actual) {
        String[] parts = documented.get(name).split("\n\n", 2);
        List<String> head = parts[0].lines().toList();
        String shown = "\n--- actual " + name + ": " + actual.statusCode() + " " + actual.headers().map() + " " + actual.body();
        assertThat(head.get(0)).as(name + " status line" + shown).isEqualTo("HTTP/1.1 " + actual.statusCode());
        for (String header : head.subList(1, head.size())) {
            int colon = header.indexOf(": ");
            String headerName = header.substring(0, colon);
            String value = header.substring(colon + 2);
            if (headerName.equals("Retry-After")) {
                // The lease's remaining seconds: the documented value right after the first call began, less as it runs.
                assertThat(actual.headers().firstValue(headerName)).as(name + ": " + header + shown).hasValueSatisfying(
                        seconds -> assertThat(Integer.parseInt(seconds)).isBetween(1, Integer.parseInt(value)));
            } else {
                assertThat(actual.headers().allValues(headerName)).as(name + ": " + header + shown).contains(value);
            }
        }
        if (parts.length > 1) {
            assertThat(actual.body()).as(name + " body" + shown).isEqualTo(parts[1].strip());
        }
    }

    private static Map<String, String> documentedAnswers() throws Exception {
        String page = Files.readString(Path.of(System.getProperty("idem.repository.root"), "docs", "getting-started.md"));
        Map<String, String> answers = new LinkedHashMap<>();
        Matcher m = ANSWER.matcher(page);
        while (m.find()) {
            answers.put(m.group(1), m.group(2));
        }
        return answers;
    }

    private HttpResponse<String> post(String key, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/payments")).header("Content-Type", "application/json")
                .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString(json)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> postQuietly(String key, String json) {
        try {
            return post(key, json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
