package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.StoredResponse;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The two body caps: a request over its cap is refused; a response over its cap is sent but stored without its body. */
@ParameterizedClass
@EnumSource(Backend.class)
class SizeLimitsHttpTest extends FilterTestSupport {
    private static final int CAP = 1024;

    SizeLimitsHttpTest(Backend backend) {
        super(backend);
    }

    private static String jsonOfLength(int length) {
        String prefix = "{\"pad\":\"";
        String suffix = "\"}";
        return prefix + "x".repeat(length - prefix.length() - suffix.length()) + suffix;
    }

    @Test
    void requestBodyOverTheCapIs413AndNothingRuns() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).maxRequestBytes(CAP).build(), Map.of(PAYMENTS, created(runs)));
        String tooLarge = jsonOfLength(CAP + 1);

        HttpResponse<String> declared = send(post(server, PAYMENTS, "big-request-1", tooLarge).build());
        HttpResponse<String> chunked = send(HttpRequest.newBuilder(server.uri(PAYMENTS))
                .timeout(Duration.ofSeconds(60))
                .header(IdempotencyFilter.DEFAULT_HEADER_NAME, "big-request-2")
                .header("Content-Type", JSON)
                // Unknown length: sent chunked, so the cap is enforced while reading.
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(tooLarge.getBytes(StandardCharsets.UTF_8))))
                .build());

        assertProblem(declared, 413, "request-too-large", "pad", "xxxx", "big-request");
        assertProblem(chunked, 413, "request-too-large", "pad", "xxxx", "big-request");
        assertThat(runs).hasValue(0);
        assertThat(rows()).isZero();
    }

    @Test
    void requestBodyAtTheCapIsAccepted() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).maxRequestBytes(CAP).build(), Map.of(PAYMENTS, created(runs)));

        HttpResponse<String> response = send(post(server, PAYMENTS, "at-cap", jsonOfLength(CAP)).build());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(runs).hasValue(1);
    }

    @Test
    void responseOverTheCapIsSentInFullButStoredWithoutItsBody() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        String large = "y".repeat(4 * CAP);
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).maxResponseBytes(CAP).build(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            response.setStatus(201);
            response.setContentType("text/plain;charset=UTF-8");
            response.setHeader("X-Handler-Run", Integer.toString(run));
            response.getWriter().write(large);
        }));

        HttpResponse<String> first = send(post(server, PAYMENTS, "big-response", "{}").build());
        StoredResponse stored = paymentRecord("big-response").orElseThrow().response().orElseThrow();
        HttpResponse<String> retry = send(post(server, PAYMENTS, "big-response", "{}").build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).as("the caller that ran it gets the whole body").isEqualTo(large);
        assertThat(first.headers().firstValue("Idempotent-Body-Omitted")).isEmpty();
        assertThat(stored.bodyLength()).isZero();
        assertThat(stored.headers()).containsEntry("Idempotent-Body-Omitted", java.util.List.of("true"));

        assertThat(runs).as("the retry did not run the handler again").hasValue(1);
        assertThat(retry.statusCode()).as("the retry learns the outcome's status").isEqualTo(201);
        assertThat(retry.body()).isEmpty();
        assertThat(retry.headers().firstValue("Idempotent-Body-Omitted")).hasValue("true");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.headers().firstValue("X-Handler-Run")).hasValue("1");
        assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
    }
}
