package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client against the answers of idem's filter: what its contract makes safe to repeat (5xx, the
 * 503 {@code store-unavailable} problem, 408/425/429, the 409 {@code key-in-use} problem) is retried
 * with the same key, honouring {@code Retry-After} and the deadline; a conflict that is not a key in
 * progress, a 4xx about the request and a 2xx are final. Waits are asserted on {@link FakeTime}, never
 * slept; every scenario runs sync and async.
 */
class ServerContractRetryTest {
    private static final String PROBLEM = "application/problem+json";
    private static final String KEY_IN_USE = "{\"type\":\"urn:idem:problem:key-in-use\",\"title\":\"Idempotency key in use\","
            + "\"status\":409,\"detail\":\"still running\"}";

    /** Jitter that always draws the longest wait, so waits are exact. */
    private static final RandomGenerator LONGEST_JITTER = new RandomGenerator() {
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
        return IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time);
    }

    private static String problem(String type, int status) {
        return "{\"type\":\"" + type + "\",\"title\":\"t\",\"status\":" + status + ",\"detail\":\"d\"}";
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_500_then_a_503_then_201_is_one_logical_request_answered_201(Mode mode) throws Exception {
        server.thenRespond(500)
                .thenRespondWith(503, PROBLEM, problem("urn:idem:problem:store-unavailable", 503), "Retry-After", "2");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("payment-1");
        assertThat(response.attempts()).isEqualTo(3);
        assertThat(server.keys()).hasSize(3).containsOnly(response.key().orElseThrow());
        assertThat(server.executions()).isEqualTo(1);
        assertThat(time.waits()).hasSize(2);
        assertThat(time.waits().get(0)).as("no Retry-After: backoff").isBetween(Duration.ZERO, Duration.ofMillis(100));
        assertThat(time.waits().get(1)).as("the 503's Retry-After").isEqualTo(Duration.ofSeconds(2));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void the_key_in_use_409_is_retried_after_its_retry_after(Mode mode) throws Exception {
        server.thenRespondWith(409, PROBLEM + "; charset=utf-8", KEY_IN_USE, "Retry-After", "3");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(time.waits()).containsExactly(Duration.ofSeconds(3));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_409_that_is_not_a_key_in_progress_is_final_and_its_body_reaches_the_caller(Mode mode) throws Exception {
        server.thenRespondWith(409, "application/json", "{\"error\":\"order already shipped\"}");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.body()).isEqualTo("{\"error\":\"order already shipped\"}");
        assertThat(response.attempts()).isEqualTo(1);
        assertThat(time.waits()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_409_problem_of_another_type_is_final_and_its_body_reaches_the_caller_intact(Mode mode) throws Exception {
        String body = problem("https://example.com/problems/out-of-stock", 409);
        server.thenRespondWith(409, PROBLEM, body, "Retry-After", "1");

        IdempotentResponse<String> response = mode.send(client().build(), Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.body()).isEqualTo(body);
        assertThat(response.attempts()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_key_in_use_is_polled_within_the_deadline_past_maxAttempts_and_past_a_retry_after_beyond_it(Mode mode) throws Exception {
        server.thenRespondWith(409, PROBLEM, KEY_IN_USE, "Retry-After", "60")
                .thenRespondWith(409, PROBLEM, KEY_IN_USE, "Retry-After", "60")
                .thenRespondWith(409, PROBLEM, KEY_IN_USE, "Retry-After", "2");

        IdempotentResponse<String> response = mode.send(client().maxAttempts(2).backoff(Duration.ofMillis(100), Duration.ofMillis(500)).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).as("the request completed while the client kept looking").isEqualTo(201);
        assertThat(response.attempts()).isEqualTo(4);
        assertThat(server.executions()).isEqualTo(1);
        assertThat(time.waits()).hasSize(3);
        assertThat(time.waits().subList(0, 2)).as("a Retry-After past the 30 s deadline: a bounded back-off instead")
                .allSatisfy(wait -> assertThat(wait).isLessThanOrEqualTo(Duration.ofMillis(500)));
        assertThat(time.waits().get(2)).as("a Retry-After within the deadline is honoured").isEqualTo(Duration.ofSeconds(2));
        assertThat(time.totalWait()).isLessThan(Duration.ofSeconds(30));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void the_last_key_in_use_answer_reaches_a_streaming_handler_in_full(Mode mode) throws Exception {
        server.thenRespondWith(409, PROBLEM, KEY_IN_USE).thenRespondWith(409, PROBLEM, KEY_IN_USE);

        // Key-in-use answers are polled until the deadline (not counted against maxAttempts): one 1 s wait fits in 1.5 s, a second does not.
        IdempotentResponse<InputStream> response = mode.send(client().deadline(Duration.ofMillis(1500))
                        .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)).random(LONGEST_JITTER).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofInputStream());

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.attempts()).isEqualTo(2);
        try (InputStream in = response.body()) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(KEY_IN_USE);
        }
        assertThat(server.executions()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void in_progress_problem_types_are_configurable(Mode mode) throws Exception {
        server.thenRespondWith(409, PROBLEM, problem("https://example.com/problems/busy", 409))
                .thenRespondWith(409, PROBLEM, KEY_IN_USE);

        IdempotentResponse<String> response = mode.send(client().inProgressProblemTypes("https://example.com/problems/busy").build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).as("idem's type is no longer one of them").isEqualTo(409);
        assertThat(response.body()).isEqualTo(KEY_IN_USE);
        assertThat(response.attempts()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void without_in_progress_problem_types_no_409_is_retried(Mode mode) throws Exception {
        server.thenRespondWith(409, PROBLEM, KEY_IN_USE);

        IdempotentResponse<String> response = mode.send(client().inProgressProblemTypes().build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.attempts()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_422_key_mismatch_and_a_2xx_are_final(Mode mode) throws Exception {
        server.thenRespondWith(422, PROBLEM, problem("urn:idem:problem:key-mismatch", 422)).thenRespond(202);
        IdempotentHttpClient client = client().build();

        IdempotentResponse<String> mismatch = mode.send(client, Http.post(server.uri("/payments")), BodyHandlers.ofString());
        IdempotentResponse<String> accepted = mode.send(client, Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(mismatch.statusCode()).isEqualTo(422);
        assertThat(mismatch.attempts()).isEqualTo(1);
        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(accepted.attempts()).isEqualTo(1);
        assertThat(time.waits()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void retry_afters_are_honoured_until_the_next_would_cross_the_deadline(Mode mode) throws Exception {
        server.thenRespond(429, "Retry-After", "1")
                .thenRespondWith(409, PROBLEM, KEY_IN_USE, "Retry-After", "Tue, 01 Jan 2030 00:00:03 GMT")
                .thenRespond(503, "Retry-After", "4");

        IdempotentResponse<String> response = mode.send(client().deadline(Duration.ofSeconds(5)).build(),
                Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThat(response.statusCode()).as("waiting 4 s more would end past the 5 s deadline").isEqualTo(503);
        assertThat(response.attempts()).isEqualTo(3);
        assertThat(time.waits()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
        assertThat(server.executions()).isZero();
    }
}
