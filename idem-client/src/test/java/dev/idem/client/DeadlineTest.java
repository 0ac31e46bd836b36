package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idem.client.IdempotentRequestFailedException.Reason;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The overall deadline bounds every logical request: no wait ends past it, and attempts get no more
 * time than remains. Time is a {@link FakeTime}; the server advances it to make attempts "slow".
 */
class DeadlineTest {
    /** Jitter that always picks the ceiling, so the waits are known in advance. */
    private static final RandomGenerator ALWAYS_MAX = new RandomGenerator() {
        @Override
        public long nextLong() {
            throw new UnsupportedOperationException("only bounded draws are expected");
        }

        @Override
        public long nextLong(long bound) {
            return bound - 1;
        }
    };

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
        return IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time).maxAttempts(100);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void retries_stop_before_a_wait_would_cross_the_deadline(Mode mode) throws Exception {
        server.alwaysRespond(503);
        IdempotentHttpClient client = client().deadline(Duration.ofSeconds(1))
                .backoff(Duration.ofMillis(400), Duration.ofMillis(400)).random(ALWAYS_MAX).build();

        IdempotentResponse<String> response = mode.send(client, Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        // waits end at 0.4 s and 0.8 s; a third would end at 1.2 s, past the deadline, so it is not taken
        assertThat(time.waits()).containsExactly(Duration.ofMillis(400), Duration.ofMillis(400));
        assertThat(response.attempts()).isEqualTo(3);
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(time.totalWait()).isLessThan(Duration.ofSeconds(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void without_a_response_the_deadline_is_the_reason(Mode mode) throws Exception {
        URI nobody = Http.closedPort();
        IdempotentHttpClient client = client().deadline(Duration.ofSeconds(1))
                .backoff(Duration.ofMillis(400), Duration.ofMillis(400)).random(ALWAYS_MAX).build();

        IdempotentRequestFailedException e = catchThrowableOfType(IdempotentRequestFailedException.class,
                () -> mode.send(client, Http.post(nobody), BodyHandlers.ofString()));

        assertThat(e.reason()).isEqualTo(Reason.DEADLINE_EXCEEDED);
        assertThat(e.attempts()).isEqualTo(3);
        assertThat(e.elapsed()).isEqualTo(Duration.ofMillis(800)).isLessThan(Duration.ofSeconds(1));
        assertThat(e.getMessage()).contains("deadline exceeded");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void slow_attempts_use_up_the_deadline(Mode mode) throws Exception {
        server.alwaysRespond(503);
        server.onRequest(() -> time.advance(Duration.ofMillis(600))); // each attempt "takes" 0.6 s
        IdempotentHttpClient client = client().deadline(Duration.ofSeconds(1))
                .backoff(Duration.ofMillis(1), Duration.ofMillis(1)).build();

        IdempotentResponse<String> response = mode.send(client, Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        // 0.6 s, a wait of at most 1 ms, then 0.6 s more: at 1.2 s no wait fits
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(server.requests()).isEqualTo(2);
        assertThat(time.waits()).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void each_attempt_timeout_is_cut_to_what_remains_of_the_deadline(Mode mode) throws Exception {
        server.thenRespond(503);
        server.onRequest(() -> time.advance(Duration.ofMillis(600)));
        RecordingHttpClient recording = new RecordingHttpClient(Http.CLIENT);
        IdempotentHttpClient client = IdempotentHttpClient.builder(recording).sleeper(time).clock(time)
                .deadline(Duration.ofSeconds(1)).attemptTimeout(Duration.ofSeconds(5))
                .backoff(Duration.ofMillis(100), Duration.ofMillis(100)).random(ALWAYS_MAX).build();

        mode.send(client, Http.post(server.uri("/payments")), BodyHandlers.ofString());

        List<HttpRequest> attempts = recording.requests();
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).timeout()).contains(Duration.ofSeconds(1));      // min(5 s, 1 s left)
        assertThat(attempts.get(1).timeout()).contains(Duration.ofMillis(300));     // 1 s - 0.6 s - 0.1 s wait
    }

    @Test
    void the_requests_own_timeout_wins_over_attemptTimeout_but_not_over_the_deadline() throws Exception {
        RecordingHttpClient recording = new RecordingHttpClient(Http.CLIENT);
        IdempotentHttpClient client = IdempotentHttpClient.builder(recording).sleeper(time).clock(time)
                .deadline(Duration.ofSeconds(10)).attemptTimeout(Duration.ofSeconds(5)).build();

        client.send(HttpRequest.newBuilder(server.uri("/a")).timeout(Duration.ofSeconds(2)).GET().build(),
                BodyHandlers.ofString());
        client.send(HttpRequest.newBuilder(server.uri("/b")).timeout(Duration.ofMinutes(1)).GET().build(),
                BodyHandlers.ofString());
        client.send(Http.get(server.uri("/c")), BodyHandlers.ofString());

        assertThat(recording.requests()).extracting(r -> r.timeout().orElseThrow())
                .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(5));
    }
}
