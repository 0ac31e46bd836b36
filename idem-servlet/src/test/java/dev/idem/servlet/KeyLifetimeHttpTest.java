package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentRequestFailedException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/** The key's lifetime over HTTP: advertised on every answer, a tombstone's 410 after it, and idem's client stopping at it. */
@ParameterizedClass
@EnumSource(Backend.class)
class KeyLifetimeHttpTest extends FilterTestSupport {
    private static final String RETENTION = "Idempotency-Key-Retention";

    KeyLifetimeHttpTest(Backend backend) {
        super(backend);
    }

    @Test
    @DisplayName("every answer advertises the retention; after it, a retry gets 410 key-expired naming the completion, and the handler does not run")
    void answersAdvertiseTheRetentionAndAnExpiredKeyIs410() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().lease(Duration.ofMillis(500)).retention(Duration.ofSeconds(1))
                .tombstones(Duration.ofHours(1)).build()).build();
        TestServer server = serve(filter, Map.of(PAYMENTS, created(runs)));
        String key = "lifetime-key-4711";

        HttpResponse<String> first = send(post(server, PAYMENTS, key, "{\"amount\":100}").build());
        HttpResponse<String> replay = send(post(server, PAYMENTS, key, "{\"amount\":100}").build());
        HttpResponse<String> mismatch = send(post(server, PAYMENTS, key, "{\"amount\":999}").build());
        Thread.sleep(2_000); // past the 1 s retention, on the database's clock as on ours
        HttpResponse<String> late = send(post(server, PAYMENTS, key, "{\"amount\":100}").build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(replay)).isTrue();
        assertThat(mismatch.statusCode()).isEqualTo(422);
        for (HttpResponse<String> response : new HttpResponse[] {first, replay, mismatch, late}) {
            assertThat(response.headers().allValues(RETENTION)).as("on the %s", response.statusCode()).containsExactly("1");
        }
        JsonNode problem = assertProblem(late, 410, "key-expired", key, "amount");
        assertThat(problem.get("detail").asString()).contains("with status 201").contains("no longer kept");
        assertThat(runs).as("the handler ran once").hasValue(1);
    }

    @Test
    @DisplayName("idem's client retries a 503 only while the key's advertised lifetime lasts, then fails naming the reason")
    void theClientStopsRetryingAtTheAdvertisedLifetime() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().lease(Duration.ofMillis(500)).retention(Duration.ofSeconds(1)).build()).build();
        TestServer server = serve(filter, Map.of(PAYMENTS, (request, response) -> {
            runs.incrementAndGet();
            request.getInputStream().readAllBytes();
            response.setStatus(503); // not stored: the key is given back and a retry runs again
        }));
        // Far more attempts and time than the 1 s lifetime allows: only the lifetime can stop it.
        IdempotentHttpClient client = IdempotentHttpClient.builder(FilterTestSupport.client).maxAttempts(1_000)
                .deadline(Duration.ofMinutes(1)).backoff(Duration.ofMillis(100), Duration.ofMillis(200)).build();

        assertThatThrownBy(() -> client.send(post(server, PAYMENTS, null, "{\"amount\":100}").build(), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOfSatisfying(IdempotentRequestFailedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(IdempotentRequestFailedException.Reason.KEY_LIFETIME_PASSED);
                    assertThat(e.getMessage()).contains("lifetime of 1 s").contains("status 503");
                    assertThat(e.getMessage()).doesNotContain(e.key().orElseThrow());
                    assertThat(e.attempts()).isGreaterThan(1).isEqualTo(runs.get());
                });
    }
}
