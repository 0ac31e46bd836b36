package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.BodySubscribers;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which responses are retried, with which key, how often — each scenario run through both the sync
 * and the async path against {@link IdempotentTestServer}.
 */
class RetryTest {
    private IdempotentTestServer server;
    private FakeTime time;

    @BeforeEach
    void start() throws IOException {
        server = IdempotentTestServer.start();
        time = new FakeTime();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private IdempotentHttpClient.Builder client() {
        return IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time);
    }

    /** Every answer idem's filter does not store: 5xx, 408, 425, 429, and the 409 of a key in progress. */
    static List<Object[]> retriedStatusesInBothModes() {
        return cross(List.of(408, 409, 425, 429, 500, 501, 502, 503, 504, 507));
    }

    /** Answers to the request itself: a retry would get the same. */
    static List<Object[]> finalStatusesInBothModes() {
        return cross(List.of(400, 401, 403, 404, 410, 422));
    }

    private static List<Object[]> cross(List<Integer> statuses) {
        return statuses.stream()
                .flatMap(status -> Set.of(Mode.values()).stream().map(mode -> new Object[] {mode, status}))
                .collect(Collectors.toList());
    }

    @ParameterizedTest(name = "{0}: {1}, {1}, then success")
    @MethodSource("retriedStatusesInBothModes")
    void retries_a_retryable_status_then_succeeds_with_one_execution(Mode mode, int status) throws Exception {
        server.thenRespond(status).thenRespond(status);

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("payment-1");
        assertThat(response.attempts()).isEqualTo(3);
        assertThat(response.replayed()).isFalse();
        assertThat(server.requests()).isEqualTo(3);
        assertThat(server.executions()).isEqualTo(1);
        assertThat(time.waits()).hasSize(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void every_attempt_carries_the_same_key(Mode mode) throws Exception {
        server.thenRespond(503).thenRespond(502).thenRespond(429).thenRespond(504);

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        String key = response.key().orElseThrow();
        assertThat(server.keys()).hasSize(5).containsOnly(key);
        assertThat(response.attempts()).isEqualTo(5);
        assertThat(server.executions(key)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void each_logical_request_gets_its_own_key(Mode mode) throws Exception {
        IdempotentHttpClient client = client().build();

        String first = mode.send(client, Http.post(server.uri("/payments")), BodyHandlers.ofString()).key().orElseThrow();
        String second = mode.send(client, Http.post(server.uri("/payments")), BodyHandlers.ofString()).key().orElseThrow();

        assertThat(first).isNotEqualTo(second);
        assertThat(server.keys()).containsExactly(first, second);
        assertThat(server.executions()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}: {1} is final")
    @MethodSource("finalStatusesInBothModes")
    void does_not_retry_a_final_status(Mode mode, int status) throws Exception {
        server.thenRespond(status);

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.attempts()).isEqualTo(1);
        assertThat(server.requests()).isEqualTo(1);
        assertThat(time.waits()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void stops_at_max_attempts_and_returns_the_last_retryable_response(Mode mode) throws Exception {
        server.alwaysRespond(503);

        IdempotentResponse<String> response = mode.send(client().maxAttempts(3).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("canned 503");
        assertThat(response.attempts()).isEqualTo(3);
        assertThat(server.requests()).isEqualTo(3);
        assertThat(time.waits()).hasSize(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void max_attempts_one_means_no_retry(Mode mode) throws Exception {
        server.alwaysRespond(503);

        IdempotentResponse<String> response = mode.send(client().maxAttempts(1).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.attempts()).isEqualTo(1);
        assertThat(server.requests()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void post_without_a_key_and_generateKeys_false_is_sent_exactly_once_even_on_503(Mode mode) throws Exception {
        server.alwaysRespond(503);

        IdempotentResponse<String> response = mode.send(client().generateKeys(false).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.attempts()).isEqualTo(1);
        assertThat(response.key()).isEmpty();
        assertThat(server.keys()).containsExactly((String) null);
        assertThat(time.waits()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void patch_without_a_key_and_generateKeys_false_is_sent_exactly_once(Mode mode) throws Exception {
        server.alwaysRespond(503);
        HttpRequest patch = HttpRequest.newBuilder(server.uri("/payments/1"))
                .method("PATCH", BodyPublishers.ofString("{\"note\":\"x\"}")).build();

        IdempotentResponse<String> response = mode.send(client().generateKeys(false).build(), patch,
                BodyHandlers.ofString());

        assertThat(response.attempts()).isEqualTo(1);
        assertThat(server.requests()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void post_with_generateKeys_false_is_retried_when_the_caller_supplies_a_key(Mode mode) throws Exception {
        server.thenRespond(503);

        IdempotentResponse<String> response = mode.send(client().generateKeys(false).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString(), "order-7-pay");

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(server.keys()).containsExactly("order-7-pay", "order-7-pay");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void an_idempotent_method_is_retried_without_a_key_and_none_is_generated(Mode mode) throws Exception {
        server.thenRespond(503).thenRespond(504);

        IdempotentResponse<String> response = mode.send(client().build(), Http.get(server.uri("/payments/1")),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.attempts()).isEqualTo(3);
        assertThat(response.key()).isEmpty();
        assertThat(server.keys()).containsExactly(null, null, null);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void retry_statuses_are_configurable(Mode mode) throws Exception {
        server.thenRespond(500).thenRespond(503);

        IdempotentResponse<String> response = mode.send(client().retryStatuses(500).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        // 500 is now retried, 503 no longer is.
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.attempts()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void the_header_name_is_configurable(Mode mode) throws Exception {
        try (IdempotentTestServer custom = IdempotentTestServer.start("X-Request-Key")) {
            custom.thenRespond(503);

            IdempotentResponse<String> response = mode.send(client().headerName("X-Request-Key").build(),
                    Http.post(custom.uri("/payments")), BodyHandlers.ofString());

            assertThat(custom.keys()).hasSize(2).containsOnly(response.key().orElseThrow());
            assertThat(custom.executions()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_replayed_response_is_reported(Mode mode) throws Exception {
        IdempotentHttpClient client = client().build();
        client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString(), "same-key");

        IdempotentResponse<String> again = mode.send(client, Http.post(server.uri("/payments")),
                BodyHandlers.ofString(), "same-key");

        assertThat(again.replayed()).isTrue();
        assertThat(again.body()).isEqualTo("payment-1");
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(server.executions("same-key")).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void the_streaming_body_of_a_discarded_response_is_closed(Mode mode) throws Exception {
        server.thenRespond(503).thenRespond(429);
        List<TrackedBody> bodies = new CopyOnWriteArrayList<>();
        BodyHandler<TrackedBody> handler = info -> BodySubscribers.mapping(BodySubscribers.ofInputStream(), in -> {
            TrackedBody body = new TrackedBody(in);
            bodies.add(body);
            return body;
        });

        IdempotentResponse<TrackedBody> response = mode.send(client().build(), Http.post(server.uri("/payments")), handler);

        assertThat(response.attempts()).isEqualTo(3);
        assertThat(bodies).hasSize(3);
        assertThat(bodies.get(0).closed).isTrue();
        assertThat(bodies.get(1).closed).isTrue();
        assertThat(bodies.get(2).closed).as("the final body belongs to the caller").isFalse();
        try (TrackedBody last = response.body()) {
            assertThat(new String(last.in.readAllBytes())).isEqualTo("payment-1");
        }
    }

    /** A streaming body that remembers whether it was closed. */
    static final class TrackedBody implements AutoCloseable {
        final InputStream in;
        volatile boolean closed;

        TrackedBody(InputStream in) {
            this.in = in;
        }

        @Override
        public void close() throws IOException {
            closed = true;
            in.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void backoff_waits_stay_within_full_jitter_bounds(Mode mode) throws Exception {
        server.thenRespond(503).thenRespond(503).thenRespond(503).thenRespond(503);

        mode.send(client().backoff(Duration.ofMillis(100), Duration.ofMillis(250)).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        List<Duration> waits = time.waits();
        assertThat(waits).hasSize(4);
        assertThat(waits.get(0)).isBetween(Duration.ZERO, Duration.ofMillis(100));
        assertThat(waits.get(1)).isBetween(Duration.ZERO, Duration.ofMillis(200));
        assertThat(waits.get(2)).isBetween(Duration.ZERO, Duration.ofMillis(250)); // 400 ms capped
        assertThat(waits.get(3)).isBetween(Duration.ZERO, Duration.ofMillis(250));
    }

    @Test
    void an_interrupt_while_waiting_ends_the_send_with_InterruptedException() {
        server.alwaysRespond(503);
        Sleeper interrupted = duration -> {
            throw new InterruptedException("stop");
        };

        assertThatThrownBy(() -> client().sleeper(interrupted).build()
                .send(Http.post(server.uri("/payments")), BodyHandlers.ofString()))
                .isInstanceOf(InterruptedException.class);
        assertThat(server.requests()).as("no attempt after the interrupt").isEqualTo(1);
    }
}
