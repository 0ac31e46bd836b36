package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code Retry-After} replaces the backoff: the client waits at least what the server asked for —
 * asserted on the waits a recording sleeper was asked for, never on the wall clock.
 */
class RetryAfterTest {
    private IdempotentTestServer server;
    private FakeTime time;

    @BeforeEach
    void start() throws IOException {
        server = IdempotentTestServer.start();
        time = new FakeTime(); // 2030-01-01T00:00:00Z, a Tuesday
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private IdempotentHttpClient.Builder client() {
        return IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void delta_seconds_are_honoured(Mode mode) throws Exception {
        server.thenRespond(503, "Retry-After", "2");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(time.waits()).hasSize(1);
        assertThat(time.waits().get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void an_http_date_is_honoured(Mode mode) throws Exception {
        server.thenRespond(429, "Retry-After", "Tue, 01 Jan 2030 00:00:07 GMT");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(time.waits()).hasSize(1);
        assertThat(time.waits().get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(7));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void retry_after_on_409_in_progress_is_honoured(Mode mode) throws Exception {
        server.thenRespond(409, "Retry-After", "1").thenRespond(409, "Retry-After", "3");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.attempts()).isEqualTo(3);
        assertThat(time.waits()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(3));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void retry_after_beyond_the_deadline_stops_at_once_without_sleeping(Mode mode) throws Exception {
        server.alwaysRespond(503, "Retry-After", "60");

        IdempotentResponse<String> response = mode.send(client().deadline(Duration.ofSeconds(10)).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.response().headers().firstValue("Retry-After")).contains("60");
        assertThat(response.attempts()).isEqualTo(1);
        assertThat(time.waits()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_date_in_the_past_retries_without_waiting(Mode mode) throws Exception {
        server.thenRespond(503, "Retry-After", "Mon, 31 Dec 2029 23:59:00 GMT");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(time.waits()).containsExactly(Duration.ZERO);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void an_unreadable_retry_after_falls_back_to_the_backoff(Mode mode) throws Exception {
        server.thenRespond(503, "Retry-After", "soon");

        IdempotentResponse<String> response = mode.send(
                client().backoff(Duration.ofMillis(50), Duration.ofMillis(50)).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(time.waits()).hasSize(1);
        assertThat(time.waits().get(0)).isBetween(Duration.ZERO, Duration.ofMillis(50));
    }
}
