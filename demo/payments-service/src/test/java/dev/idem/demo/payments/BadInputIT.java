package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Bad input to the packaged service, with and without an {@code Idempotency-Key}: a clear 4xx
 * {@code application/problem+json} answer, never a 5xx, and nothing reaches the card gateway.
 */
class BadInputIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    static Path dir;
    private static GatewayForTests gateway;
    private static ServiceProcess service;

    @BeforeAll
    static void start() {
        gateway = GatewayForTests.start(dir);
        service = ServiceProcess.start(ServiceProcess.freePort(), gateway.baseUrl(), dir.resolve("payments"), dir.resolve("service.log"));
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
        gateway.close();
    }

    static Stream<Arguments> badBodies() {
        List<Arguments> cases = new ArrayList<>();
        String big = "{\"amount\":100,\"currency\":\"EUR\",\"card\":\"c\",\"padding\":\"" + "x".repeat(20_000) + "\"}";
        Object[][] table = {
                {"missing amount", "{\"currency\":\"EUR\",\"card\":\"bad-1\"}", 400, "amount is required"},
                {"missing currency", "{\"amount\":100,\"card\":\"bad-2\"}", 400, "currency is required"},
                {"missing card", "{\"amount\":100,\"currency\":\"EUR\"}", 400, "card is required"},
                {"empty object", "{}", 400, "amount is required"},
                {"negative amount", "{\"amount\":-5,\"currency\":\"EUR\",\"card\":\"bad-3\"}", 400, "between 1 and"},
                {"zero amount", "{\"amount\":0,\"currency\":\"EUR\",\"card\":\"bad-4\"}", 400, "between 1 and"},
                {"fractional amount", "{\"amount\":12.5,\"currency\":\"EUR\",\"card\":\"bad-5\"}", 400, "integer"},
                {"amount as text", "{\"amount\":\"100\",\"currency\":\"EUR\",\"card\":\"bad-6\"}", 400, "integer"},
                {"unknown currency", "{\"amount\":100,\"currency\":\"XYZ\",\"card\":\"bad-7\"}", 400, "currency must be one of"},
                {"unknown field", "{\"amount\":100,\"currency\":\"EUR\",\"card\":\"bad-8\",\"tip\":5}", 400, "unknown field"},
                {"invalid JSON", "{\"amount\":100,\"currency\":\"EUR\",\"card\":", 400, ""},
                {"not an object", "[1,2,3]", 400, "JSON object"},
                {"empty body", "", 400, ""},
                {"oversized body", big, 413, ""},
        };
        for (Object[] row : table) {
            for (boolean withKey : new boolean[] {false, true}) {
                cases.add(Arguments.of(row[0] + (withKey ? ", with key" : ", no key"), row[1], row[2], row[3], withKey));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBodies")
    void badBodiesAreA4xxProblemAndChargeNothing(String name, String body, int status, String detailPart, boolean withKey) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(service.baseUrl() + "/payments")).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (withKey) {
            request.header("Idempotency-Key", UUID.randomUUID().toString());
        }

        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());

        assertProblem(response, status);
        assertThat(JSON.readTree(response.body()).path("detail").asString()).contains(detailPart);
        assertThat(gateway.ledger()).as("nothing charged").isEmpty();
    }

    @Test
    void aBodyThatIsNotJsonIs415() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/payments"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("amount=100")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 415);
        assertThat(gateway.ledger()).isEmpty();
    }

    @Test
    void aMalformedKeyIs400() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/payments"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "x".repeat(300))
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100,\"currency\":\"EUR\",\"card\":\"bad-key\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 400);
        assertThat(JSON.readTree(response.body()).path("type").asString()).isEqualTo("urn:idem:problem:key-invalid");
        assertThat(gateway.ledger()).isEmpty();
    }

    @Test
    void aKeyReusedForAnotherPaymentIs422AndChargesOnlyTheFirst() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(key, "{\"amount\":100,\"currency\":\"EUR\",\"card\":\"reused-key\"}");
        HttpResponse<String> second = post(key, "{\"amount\":999,\"currency\":\"EUR\",\"card\":\"reused-key\"}");
        assertThat(first.statusCode()).isEqualTo(201);
        assertProblem(second, 422);
        assertThat(gateway.chargesOf("reused-key")).hasSize(1);
        assertThat(gateway.chargesOf("reused-key").get(0).amount()).isEqualTo(100);
    }

    @Test
    void theCountersAnswerAndAPoolPressureOutOfRangeIs400() throws Exception {
        HttpResponse<String> counters = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/internal/counters")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(counters.statusCode()).isEqualTo(200);
        JsonNode counts = JSON.readTree(counters.body());
        assertThat(counts.has("takeovers")).isTrue();
        assertThat(counts.has("leasesLost")).isTrue();
        assertThat(counts.get("pid").asLong()).isPositive();
        assertThat(counts.get("coalescesCommits").asLong()).as("SQLite's default: the store coalesces commits").isEqualTo(1);

        for (String millis : List.of("0", "600001")) {
            HttpResponse<String> refused = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl()
                    + "/internal/faults/pool-pressure?millis=" + millis)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).as("millis=" + millis).isEqualTo(400);
            assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).contains("problem+json"));
            assertThat(refused.body()).contains("millis must be 1-600000");
        }
    }

    @Test
    void anUnknownPaymentIs404() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/payments/pay_nope")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 404);
    }

    static Stream<Arguments> badRevenueRanges() {
        return Stream.of(
                Arguments.of("POST", "/revenue/recompute?to=2026-12-01T10:01:00Z", "from is missing"),
                Arguments.of("GET", "/revenue?from=2026-12-01T10:00:00Z", "to is missing"),
                Arguments.of("POST", "/revenue/recompute?from=yesterday&to=2026-12-01T10:01:00Z", "from is not an ISO-8601 instant"),
                Arguments.of("GET", "/revenue?from=2026-12-01T10:01:00Z&to=2026-12-01T10:00:00Z", "from must be before to"),
                Arguments.of("POST", "/revenue/recompute?from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z", "longer than 7 days"),
                Arguments.of("POST", "/revenue/recompute?from=2026-12-01T10:00:30Z&to=2026-12-01T10:01:00Z", "window boundary"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badRevenueRanges")
    void aBadRevenueRangeIs400NamingWhatIsWrong(String method, String pathAndQuery, String detailPart) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + pathAndQuery))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 400);
        assertThat(JSON.readTree(response.body()).path("type").asString()).isEqualTo("urn:idem:demo:problem:invalid-range");
        assertThat(JSON.readTree(response.body()).path("detail").asString()).contains(detailPart);
    }

    @Test
    void aRevenueRecomputationRunTwiceOverHttpAnswersTheSameTotals() throws Exception {
        String range = "?from=2026-12-01T10:00:00Z&to=2026-12-01T11:00:00Z";
        HttpResponse<String> first = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/revenue/recompute" + range))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> second = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/revenue/recompute" + range))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> totals = HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/revenue" + range)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(first.statusCode()).as("body: %s", first.body()).isEqualTo(200);
        assertThat(JSON.readTree(second.body())).isEqualTo(JSON.readTree(first.body()));
        assertThat(JSON.readTree(second.body()).path("windows").asLong()).isEqualTo(60);
        assertThat(totals.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(totals.body()).isArray()).isTrue();
    }

    private static HttpResponse<String> post(String key, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/payments")).header("Content-Type", "application/json")
                .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertProblem(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as("status; body: %s", response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.path("status").asInt()).isEqualTo(status);
        assertThat(problem.path("title").asString()).isNotEmpty();
        assertThat(problem.path("type").asString()).isNotEmpty();
    }
}
