package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The HTTP rules without a web stack: what each key header, outcome and failure is answered. */
class HttpAnswersTest {
    private final HttpAnswers answers = new HttpAnswers("Idempotency-Key", Duration.ofMillis(1500));

    private static String body(HttpAnswer answer) {
        return new String(answer.body(), StandardCharsets.UTF_8);
    }

    @Test
    void theKeyHeaderIsAbsentValidOrRefusedWithoutItsValue() {
        assertThat(answers.key(List.of())).isInstanceOf(HttpAnswers.KeyHeader.Absent.class);
        assertThat(answers.key(List.of("order-1"))).isEqualTo(new HttpAnswers.KeyHeader.Valid(IdempotencyKey.of("order-1")));
        HttpAnswers.KeyHeader twice = answers.key(List.of("first-value", "second-value"));
        assertThat(twice).isInstanceOfSatisfying(HttpAnswers.KeyHeader.Refused.class, refused -> {
            assertThat(refused.answer().status()).isEqualTo(400);
            assertThat(body(refused.answer())).contains("urn:idem:problem:key-invalid", "2 times")
                    .doesNotContain("first-value", "second-value");
        });
        assertThat(answers.key(List.of("with\ttab"))).isInstanceOfSatisfying(HttpAnswers.KeyHeader.Refused.class, refused ->
                assertThat(body(refused.answer())).contains("The Idempotency-Key header is invalid: ").doesNotContain("with\ttab"));
    }

    @Test
    void problemsAreProblemJsonThatCachesMustNotKeep() {
        HttpAnswer missing = answers.keyMissing();
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.headers()).containsExactly(HttpAnswer.Header.set("Content-Type", Problem.MEDIA_TYPE),
                HttpAnswer.Header.set("Cache-Control", "no-store"));
        assertThat(body(missing)).startsWith("{\"type\":\"urn:idem:problem:key-missing\",\"title\":\"Idempotency key missing\",\"status\":400,");
        assertThat(answers.requestTooLarge(10).status()).isEqualTo(413);
        assertThat(body(answers.malformedJson("unexpected end at position 3"))).contains("position 3.");
    }

    @Test
    void eachOutcomeInWhichTheHandlerDidNotRunHasItsAnswer() {
        HttpAnswer inUse = answers.answer(new Outcome.InProgress(Duration.ofMillis(200)));
        assertThat(inUse.status()).isEqualTo(409);
        assertThat(inUse.headers()).contains(HttpAnswer.Header.set("Retry-After", "1"));
        assertThat(answers.answer(new Outcome.Mismatch()).status()).isEqualTo(422);
        StoredResponse stored = StoredResponse.of(201, Map.of("Location", List.of("/orders/1")), "made".getBytes(StandardCharsets.UTF_8));
        assertThat(answers.answer(new Outcome.Replayed(stored))).isEqualTo(HttpAnswers.replay(stored));
        assertThatThrownBy(() -> answers.answer(new Outcome.Executed(stored, true, 1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anExpiredKeyIs410KeyExpiredWithTheTimeAndStatusAndNoBodyOfTheResponse() {
        HttpAnswer expired = answers.answer(new Outcome.Expired(java.time.Instant.parse("2026-12-01T10:15:30Z"), 201));
        String body = new String(expired.body(), StandardCharsets.UTF_8);
        assertThat(expired.status()).isEqualTo(410);
        assertThat(expired.headers()).contains(HttpAnswer.Header.set("Content-Type", Problem.MEDIA_TYPE));
        assertThat(body).contains("urn:idem:problem:key-expired").contains("completed at 2026-12-01T10:15:30Z with status 201")
                .contains("no longer kept");
    }

    @Test
    void theRetentionHeaderIsWholeSecondsRoundedDownAndNeverStored() {
        assertThat(HttpAnswers.retentionHeader(Duration.ofMillis(86_400_999)))
                .isEqualTo(HttpAnswer.Header.set("Idempotency-Key-Retention", "86400"));
        HttpAnswer mismatch = HttpAnswers.advertisingRetention(answers.answer(new Outcome.Mismatch()), Duration.ofHours(1));
        assertThat(mismatch.headers()).endsWith(HttpAnswer.Header.set("Idempotency-Key-Retention", "3600"));
        assertThat(HttpAnswers.storesHeader("idempotency-key-retention")).isFalse();
    }

    @Test
    void aReplaySetsTheStoredHeadersAppendsTheAppendedOnesAndMarksItself() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Location", List.of("/orders/1"));
        headers.put("Vary", List.of("Accept", "Origin"));
        headers.put(HttpAnswers.APPENDED_HEADER, List.of("Vary"));
        HttpAnswer replay = HttpAnswers.replay(StoredResponse.of(201, headers, new byte[] {1, 2}));
        assertThat(replay.status()).isEqualTo(201);
        assertThat(replay.headers()).containsExactly(HttpAnswer.Header.set("Location", "/orders/1"),
                HttpAnswer.Header.add("Vary", "Accept"), HttpAnswer.Header.add("Vary", "Origin"),
                HttpAnswer.Header.set(HttpAnswers.REPLAYED_HEADER, "true"));
        assertThat(replay.body()).containsExactly(1, 2);
        assertThat(HttpAnswers.replay(StoredResponse.of(204, new byte[0])).hasContent()).isFalse();
    }

    @Test
    void onlyStoreAndLeaseFailuresAreIdemsToAnswer() {
        Scope scope = Scope.of("alice", "POST /orders");
        StoreException down = StoreException.failed("test", "claim", scope, new RuntimeException("refused"));
        HttpAnswer before = answers.failure(new RuntimeException("wrapped", down), false).orElseThrow();
        assertThat(before.status()).isEqualTo(503);
        assertThat(before.headers()).contains(HttpAnswer.Header.set("Retry-After", "2"));
        assertThat(body(before)).contains("was not processed");
        assertThat(body(answers.failure(down, true).orElseThrow())).contains("is not final");
        assertThat(answers.failure(LeaseLostException.staleToken(scope, 7, "complete"), true).orElseThrow().status()).isEqualTo(409);
        assertThat(answers.failure(new IllegalStateException("the handler's own"), true)).isEmpty();
    }
}
