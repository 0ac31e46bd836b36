package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idem.client.IdempotentRequestFailedException.Reason;
import dev.idem.client.RawSocketServer.Fault;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.HashSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults on the wire, from a raw socket server that executes the request and then loses the
 * response. The point of the whole module: with one key across retries, a lost response costs one
 * execution; with a new key per retry, it costs two.
 */
class WireFaultTest {
    private RawSocketServer server;
    private FakeTime time;

    @BeforeEach
    void start() throws IOException {
        server = new RawSocketServer();
        time = new FakeTime();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private IdempotentHttpClient.Builder client() {
        return IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_response_dropped_on_the_wire_costs_one_execution_and_is_replayed(Mode mode) throws Exception {
        server.faults(Fault.DROP);

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(server.executions()).as("executions on the server").isEqualTo(1);
        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("payment-1");
        assertThat(response.replayed()).isTrue();
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(server.keys()).containsExactly(response.key().orElseThrow(), response.key().orElseThrow());
    }

    /**
     * The classic bug, on purpose: the caller retries by calling {@code send} again after a lost
     * response, and every call is a new logical request with a new key. The server cannot tell the
     * retry from a new payment, so the card is charged twice.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_new_key_per_retry_is_the_classic_bug_and_executes_twice(Mode mode) throws Exception {
        server.faults(Fault.DROP);
        IdempotentHttpClient noRetries = client().maxAttempts(1).build();
        HttpRequest pay = Http.post(server.uri("/payments"));

        IdempotentResponse<String> response = null;
        for (int attempt = 1; attempt <= 2 && response == null; attempt++) {
            try {
                response = mode.send(noRetries, pay, BodyHandlers.ofString()); // a fresh key on each call
            } catch (IdempotentRequestFailedException lost) {
                // the naive retry loop: try again, unaware that a new call means a new key
            }
        }

        assertThat(response).isNotNull();
        assertThat(response.replayed()).isFalse();
        assertThat(response.body()).isEqualTo("payment-2");
        assertThat(server.keys()).hasSize(2);
        assertThat(new HashSet<>(server.keys())).as("distinct keys").hasSize(2);
        assertThat(server.executions()).as("executions on the server: charged twice").isEqualTo(2);
    }

    /** The fix for the loop above: keep the key of the failed logical request and send it again. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_caller_retrying_later_with_the_failed_requests_key_gets_the_replay(Mode mode) throws Exception {
        server.faults(Fault.DROP);
        IdempotentHttpClient noRetries = client().maxAttempts(1).build();
        HttpRequest pay = Http.post(server.uri("/payments"));

        IdempotentRequestFailedException lost = catchThrowableOfType(IdempotentRequestFailedException.class,
                () -> mode.send(noRetries, pay, BodyHandlers.ofString()));
        IdempotentResponse<String> later = mode.send(noRetries, pay, BodyHandlers.ofString(), lost.key().orElseThrow());

        assertThat(later.replayed()).isTrue();
        assertThat(later.body()).isEqualTo("payment-1");
        assertThat(server.executions()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_connection_reset_after_execution_is_retried_and_replayed(Mode mode) throws Exception {
        server.faults(Fault.RESET);

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.replayed()).isTrue();
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(server.executions()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_premature_eof_in_the_body_is_retried_and_replayed(Mode mode) throws Exception {
        server.faults(Fault.TRUNCATE);

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")),
                BodyHandlers.ofString());

        assertThat(response.replayed()).isTrue();
        assertThat(response.body()).isEqualTo("payment-1");
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(server.executions()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void an_attempt_that_times_out_is_retried_and_replayed(Mode mode) throws Exception {
        server.faults(Fault.STALL);

        IdempotentResponse<String> response = mode.send(client().attemptTimeout(Duration.ofMillis(300)).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.replayed()).isTrue();
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(server.executions()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_timeout_is_reported_as_the_last_cause(Mode mode) {
        server.faults(Fault.STALL);

        IdempotentRequestFailedException e = catchThrowableOfType(IdempotentRequestFailedException.class,
                () -> mode.send(client().maxAttempts(1).attemptTimeout(Duration.ofMillis(300)).build(),
                        Http.post(server.uri("/payments")), BodyHandlers.ofString()));

        assertThat(e.getCause()).isInstanceOf(HttpTimeoutException.class);
        assertThat(e.reason()).isEqualTo(Reason.ATTEMPTS_EXHAUSTED);
        assertThat(e.attempts()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void connection_refused_on_every_attempt_throws_with_attempts_elapsed_and_cause(Mode mode) throws Exception {
        URI nobody = Http.closedPort();

        IdempotentRequestFailedException e = catchThrowableOfType(IdempotentRequestFailedException.class,
                () -> mode.send(client().maxAttempts(4).build(), Http.post(nobody, "card=4242424242424242"),
                        BodyHandlers.ofString(), "pay-secret-777"));

        assertThat(e.attempts()).isEqualTo(4);
        assertThat(e.reason()).isEqualTo(Reason.ATTEMPTS_EXHAUSTED);
        assertThat(e.getCause()).isInstanceOf(ConnectException.class);
        assertThat(e.elapsed()).isEqualTo(time.totalWait()); // the fake clock moved by the waits only
        assertThat(e.key()).contains("pay-secret-777");
        assertThat(e.getMessage())
                .contains("POST", "/payments", "4 attempts", "attempts exhausted", ConnectException.class.getName())
                .doesNotContain("pay-secret-777")
                .doesNotContain("4242424242424242");
        assertThat(e.toString()).doesNotContain("pay-secret-777");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void post_without_a_key_is_not_retried_after_a_dropped_response(Mode mode) {
        server.faults(Fault.DROP);

        IdempotentRequestFailedException e = catchThrowableOfType(IdempotentRequestFailedException.class,
                () -> mode.send(client().generateKeys(false).build(), Http.post(server.uri("/payments")),
                        BodyHandlers.ofString()));

        assertThat(e.reason()).isEqualTo(Reason.NOT_RETRYABLE);
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(e.key()).isEmpty();
        assertThat(server.keys()).containsExactly((String) null);
        assertThat(server.executions()).isEqualTo(1);
        assertThat(time.waits()).isEmpty();
    }

    @Test
    void the_exception_message_keeps_the_query_string_out() throws Exception {
        URI nobody = Http.closedPort().resolve("/payments?token=tok_secret");

        IdempotentRequestFailedException e = catchThrowableOfType(IdempotentRequestFailedException.class,
                () -> client().maxAttempts(1).build().send(Http.post(nobody), BodyHandlers.ofString()));

        assertThat(e.getMessage()).contains("/payments").doesNotContain("tok_secret");
    }
}
