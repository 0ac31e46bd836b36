package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.client.IdempotentRequestFailedException.Reason;
import dev.idem.client.RetryRules.Finish;
import dev.idem.client.RetryRules.GiveUp;
import dev.idem.client.RetryRules.Retry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RetryRules on their own, as a client other than IdempotentHttpClient drives them: status, Retry-After and problem type in, a decision out. */
class RetryRulesTest {
    private static final String KEY_IN_USE = "urn:idem:problem:key-in-use";
    private final FakeTime time = new FakeTime();
    private final RetryRules rules = RetryRules.builder().clock(time).maxAttempts(2).deadline(Duration.ofSeconds(10)).build();

    @Test
    void aRetryableStatusWaitsItsRetryAfterUntilAttemptsRunOut() {
        RetryRules.Attempts attempts = rules.start(true);

        attempts.attemptStarted();
        assertThat(attempts.onResponse(503, "3", null)).isEqualTo(new Retry(Duration.ofSeconds(3)));
        attempts.attemptStarted();
        assertThat(attempts.onResponse(503, "3", null)).as("maxAttempts 2 reached").isInstanceOf(Finish.class);
    }

    @Test
    void aRetryThatWouldStartPastTheAdvertisedKeyLifetimeIsGivenUpNamingTheReasonNotTheKey() {
        RetryRules long_ = RetryRules.builder().clock(time).maxAttempts(10).deadline(Duration.ofMinutes(5)).build();
        RetryRules.Attempts attempts = long_.start(true);

        attempts.attemptStarted();
        assertThat(attempts.onResponse(503, "20", null, "60")).as("20 s in: within 60 s").isEqualTo(new Retry(Duration.ofSeconds(20)));
        time.advance(Duration.ofSeconds(20));
        attempts.attemptStarted();
        assertThat(attempts.onResponse(503, "20", null, "not a number")).as("ignored; 40 s in").isEqualTo(new Retry(Duration.ofSeconds(20)));
        time.advance(Duration.ofSeconds(20));
        attempts.attemptStarted();
        RetryRules.Decision past = attempts.onResponse(503, "20", null, "90");
        assertThat(past).as("60 s would be reached: the shortest lifetime advertised holds")
                .isEqualTo(new GiveUp(Reason.KEY_LIFETIME_PASSED));
        IdempotentRequestFailedException e = attempts.failure((GiveUp) past, "POST", URI.create("http://h/p?token=t"), "the-key-value", null);
        assertThat(e.reason()).isEqualTo(Reason.KEY_LIFETIME_PASSED);
        assertThat(e.getMessage()).contains("lifetime of 60 s").contains("status 503").doesNotContain("the-key-value").doesNotContain("token");
        assertThat(e.key()).contains("the-key-value");

        RetryRules.Attempts silent = long_.start(true);
        silent.attemptStarted();
        silent.onResponse(503, "1", null, "0");
        silent.attemptStarted();
        assertThat(silent.onNoResponse()).as("no response either").isEqualTo(new GiveUp(Reason.KEY_LIFETIME_PASSED));
    }

    @Test
    void finalAnswersAreNeverRetried() {
        RetryRules.Attempts attempts = rules.start(true);
        attempts.attemptStarted();

        assertThat(List.of(201, 400, 404, 422)).allSatisfy(status ->
                assertThat(attempts.onResponse(status, "1", null)).isInstanceOf(Finish.class));
        assertThat(attempts.onResponse(409, "1", "urn:other:conflict")).as("another conflict").isInstanceOf(Finish.class);
        assertThat(rules.start(false).onResponse(503, "1", null)).as("no key: sent once").isInstanceOf(Finish.class);
    }

    @Test
    void aKeyInUseIsPolledUntilTheDeadlineWithoutCountingAgainstMaxAttempts() {
        RetryRules.Attempts attempts = rules.start(true);
        int polls = 0;
        while (true) {
            attempts.attemptStarted();
            RetryRules.Decision decision = attempts.onResponse(409, "1", KEY_IN_USE);
            if (!(decision instanceof Retry retry)) {
                break;
            }
            polls++;
            time.advance(retry.delay());
        }

        // Nine waits of Retry-After 1 s fit in 10 s; near the end a shorter random back-off may add a few.
        assertThat(polls).as("far past maxAttempts 2").isGreaterThanOrEqualTo(9);
        assertThat(attempts.elapsed()).as("no wait ends past the deadline").isLessThan(Duration.ofSeconds(10));
        assertThat(RetryRules.problemType(("{\"type\":\"" + KEY_IN_USE + "\",\"status\":409}").getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(KEY_IN_USE);
    }

    @Test
    void noResponseGivesUpWithAReasonAndAnExceptionThatKeepsTheKeyOutOfItsMessage() {
        RetryRules.Attempts attempts = rules.start(true);
        attempts.attemptStarted();
        assertThat(attempts.onNoResponse()).isInstanceOf(Retry.class);
        attempts.attemptStarted();
        RetryRules.Decision last = attempts.onNoResponse();

        assertThat(last).isEqualTo(new GiveUp(Reason.ATTEMPTS_EXHAUSTED));
        IdempotentRequestFailedException e = attempts.failure((GiveUp) last, "POST", URI.create("http://h:1/pay?token=t"),
                "key-secret-1", new java.io.IOException("reset"));
        assertThat(e.attempts()).isEqualTo(2);
        assertThat(e.key()).hasValue("key-secret-1");
        assertThat(e.getMessage()).contains("POST http://h:1/pay").doesNotContain("key-secret-1", "token");
        assertThat(rules.start(false).onNoResponse()).isEqualTo(new GiveUp(Reason.NOT_RETRYABLE));
    }

    @Test
    void suppliedKeysAreCheckedWithoutShowingThem() {
        assertThat(RetryRules.suppliedKey(null, "Idempotency-Key")).isNull();
        assertThat(RetryRules.suppliedKey(List.of("k-1"), "Idempotency-Key")).isEqualTo("k-1");
        assertThatThrownBy(() -> RetryRules.suppliedKey(List.of("a", "b"), "Idempotency-Key"))
                .hasMessageContaining("2 Idempotency-Key headers");
        assertThatThrownBy(() -> RetryRules.suppliedKey(List.of("has space-secret"), "Idempotency-Key"))
                .hasMessageContaining("a space").hasMessageNotContaining("secret");
        assertThat(RetryRules.newKey()).hasSize(36);
    }
}
