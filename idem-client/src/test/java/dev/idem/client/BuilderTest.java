package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder validates at the setter, names the bad value, and yields an immutable client. */
class BuilderTest {
    private final IdempotentHttpClient.Builder builder = IdempotentHttpClient.builder(Http.CLIENT);

    @Test
    void defaults() {
        String description = IdempotentHttpClient.builder(Http.CLIENT).build().toString();

        assertThat(description)
                .contains("headerName=Idempotency-Key")
                .contains("maxAttempts=5")
                .contains("deadline=PT30S")
                .contains("attemptTimeout=none")
                .contains("base=PT0.1S, cap=PT5S")
                .contains("retryStatuses=[408, 425, 429, 500-599]")
                .contains("inProgressProblemTypes=[urn:idem:problem:key-in-use]")
                .contains("generateKeys=true")
                .contains("clock=MonotonicClock")
                .contains("sleeper=Sleeper.system()");
    }

    @Test
    void a_null_http_client_is_refused() {
        assertThatThrownBy(() -> IdempotentHttpClient.builder(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("http client");
    }

    @Test
    void max_attempts_must_be_at_least_one() {
        assertThatThrownBy(() -> builder.maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be at least 1, was 0");
        assertThatThrownBy(() -> builder.maxAttempts(-3)).hasMessageContaining("was -3");
    }

    @Test
    void durations_must_be_positive() {
        assertThatThrownBy(() -> builder.deadline(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("deadline must be positive, was PT0S");
        assertThatThrownBy(() -> builder.attemptTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attemptTimeout must be positive, was PT-1S");
        assertThatThrownBy(() -> builder.backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoff base must be positive, was PT0S");
        assertThatThrownBy(() -> builder.backoff(Duration.ofSeconds(1), Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoff cap must be positive, was PT-0.005S");
        assertThatThrownBy(() -> builder.deadline(null))
                .isInstanceOf(NullPointerException.class).hasMessage("deadline is null");
    }

    @Test
    void the_backoff_cap_must_not_be_below_its_base() {
        assertThatThrownBy(() -> builder.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backoff cap must not be below its base, was cap PT1S < base PT2S");
    }

    @Test
    void retry_statuses_must_be_client_or_server_errors() {
        assertThatThrownBy(() -> builder.retryStatuses(503, 200))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryStatuses must be in 400-599, was 200");
        assertThatThrownBy(() -> builder.retryStatuses(600)).hasMessageContaining("was 600");
        assertThatThrownBy(() -> builder.retryStatuses(302)).hasMessageContaining("was 302");
    }

    @Test
    void in_progress_problem_types_must_not_be_blank() {
        assertThatThrownBy(() -> builder.inProgressProblemTypes("urn:idem:problem:key-in-use", " "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was ' '");
        assertThatThrownBy(() -> builder.inProgressProblemTypes((String) null)).hasMessageContaining("was null");
        assertThat(builder.inProgressProblemTypes("urn:x:busy").build().toString()).contains("inProgressProblemTypes=[urn:x:busy]");
        assertThat(builder.retryStatuses(503, 409, 500, 501, 502).build().toString()).contains("retryStatuses=[409, 500-503]");
    }

    @Test
    void the_header_name_must_be_a_token_the_jdk_accepts() {
        assertThatThrownBy(() -> builder.headerName(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("headerName must not be empty");
        assertThatThrownBy(() -> builder.headerName("Idempotency Key"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("headerName must be an HTTP token, was 'Idempotency Key' (bad character at position 11)");
        assertThatThrownBy(() -> builder.headerName("Host"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("headerName 'Host' is refused by java.net.http");
        assertThatThrownBy(() -> builder.headerName(null))
                .isInstanceOf(NullPointerException.class).hasMessage("headerName is null");
    }

    @Test
    void collaborators_must_not_be_null() {
        assertThatThrownBy(() -> builder.sleeper(null)).hasMessage("sleeper is null");
        assertThatThrownBy(() -> builder.clock(null)).hasMessage("clock is null");
        assertThatThrownBy(() -> builder.random(null)).hasMessage("random is null");
        assertThatThrownBy(() -> builder.retryStatuses((int[]) null)).hasMessage("statuses is null");
    }

    @Test
    void a_failed_setter_leaves_the_previous_value() {
        builder.maxAttempts(7);
        assertThatThrownBy(() -> builder.maxAttempts(0)).isInstanceOf(IllegalArgumentException.class);

        assertThat(builder.build().toString()).contains("maxAttempts=7");
    }

    @Test
    void the_built_client_does_not_change_with_its_builder() throws IOException, InterruptedException {
        FakeTime time = new FakeTime();
        try (IdempotentTestServer server = IdempotentTestServer.start()) {
            server.alwaysRespond(503);
            IdempotentHttpClient.Builder b = IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time).maxAttempts(2);
            IdempotentHttpClient client = b.build();

            b.maxAttempts(4).retryStatuses(500).generateKeys(false);
            IdempotentResponse<String> response = client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString());

            assertThat(response.attempts()).isEqualTo(2);
            assertThat(response.key()).isPresent();
            assertThat(client.toString()).contains("maxAttempts=2", "retryStatuses=[408, 425, 429, 500-599]");
        }
    }
}
