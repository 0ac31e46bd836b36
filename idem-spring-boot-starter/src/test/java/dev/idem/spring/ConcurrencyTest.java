package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * 32 identical requests at once, and the same key from two principals. The first request is held
 * inside its handler (a gate) until the others have been answered (reject) or are waiting (wait),
 * so the overlap is certain rather than likely.
 */
abstract class ConcurrencyTest extends AppTest {
    private static final int CALLERS = 32;

    @Test
    void thirtyTwoIdenticalPostsWithTheWaitPolicyRunOnceAndAllGetTheSameAnswer() throws Exception {
        String key = fresh("wait");
        String item = fresh("wait-item");
        double conflictsBefore = app.claims("in_progress");
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        app.gate().arm();
        try {
            for (int i = 0; i < CALLERS; i++) {
                calls.add(CLIENT.sendAsync(post("/wait", key, itemJson(item)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            app.gate().awaitEntered();
            // Each of the 31 others reports one conflict when it finds the key held, then waits.
            awaitTrue("all others are waiting", () -> app.claims("in_progress") - conflictsBefore >= CALLERS - 1);
        } finally {
            app.gate().release();
        }
        List<HttpResponse<String>> responses = join(calls);

        assertThat(app.effects().count(item)).as("the handler ran once").isEqualTo(1);
        assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(201);
        assertThat(responses).extracting(HttpResponse::body).as("every caller got the same body")
                .containsOnly(responses.get(0).body());
        assertThat(responses.stream().filter(AppTest::replayed).count()).as("all but the first are replays").isEqualTo(CALLERS - 1);
    }

    @Test
    void thirtyTwoIdenticalPostsWithTheRejectPolicyRunOnceAndTheOthersGet409() throws Exception {
        String key = fresh("reject");
        String item = fresh("reject-item");
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        app.gate().arm();
        try {
            for (int i = 0; i < CALLERS; i++) {
                calls.add(CLIENT.sendAsync(post("/reject", key, itemJson(item)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            app.gate().awaitEntered();
            awaitTrue("the 31 others are answered", () -> calls.stream().filter(CompletableFuture::isDone).count() >= CALLERS - 1);
        } finally {
            app.gate().release();
        }
        List<HttpResponse<String>> responses = join(calls);

        assertThat(app.effects().count(item)).as("the handler ran once").isEqualTo(1);
        List<HttpResponse<String>> created = responses.stream().filter(r -> r.statusCode() == 201).toList();
        List<HttpResponse<String>> rejected = responses.stream().filter(r -> r.statusCode() == 409).toList();
        assertThat(created).as("one got the result").hasSize(1);
        assertThat(replayed(created.get(0))).isFalse();
        assertThat(rejected).as("the others got 409").hasSize(CALLERS - 1);
        for (HttpResponse<String> response : rejected) {
            assertProblem(response, 409, "key-in-use", key, item);
            assertThat(response.headers().firstValue("Retry-After")).as("409 carries Retry-After").isPresent();
        }
    }

    @Test
    void theSameKeyFromTwoPrincipalsIsTwoIndependentExecutions() throws Exception {
        String key = fresh("shared-key");
        String aliceItem = fresh("alice-secret");
        String bobItem = fresh("bob-secret");

        HttpResponse<String> alice = send(post("/orders", key, itemJson(aliceItem)).header(TestApp.API_KEY_HEADER, "alice-api-key").build());
        HttpResponse<String> bob = send(post("/orders", key, itemJson(bobItem)).header(TestApp.API_KEY_HEADER, "bob-api-key").build());
        HttpResponse<String> aliceAgain = send(post("/orders", key, itemJson(aliceItem)).header(TestApp.API_KEY_HEADER, "alice-api-key").build());
        HttpResponse<String> bobAgain = send(post("/orders", key, itemJson(bobItem)).header(TestApp.API_KEY_HEADER, "bob-api-key").build());

        assertThat(alice.statusCode()).isEqualTo(201);
        assertThat(bob.statusCode()).as("not a mismatch: another principal's key is another record").isEqualTo(201);
        assertThat(replayed(alice)).isFalse();
        assertThat(replayed(bob)).isFalse();
        assertThat(app.effects().count(aliceItem)).isEqualTo(1);
        assertThat(app.effects().count(bobItem)).isEqualTo(1);
        assertThat(alice.body()).contains(aliceItem).doesNotContain(bobItem);
        assertThat(bob.body()).contains(bobItem).doesNotContain(aliceItem);
        assertThat(replayed(aliceAgain)).isTrue();
        assertThat(aliceAgain.body()).isEqualTo(alice.body());
        assertThat(replayed(bobAgain)).isTrue();
        assertThat(bobAgain.body()).isEqualTo(bob.body());
        assertThat(app.scopesOfKey(key)).as("two records, principals stored as digests of the credential")
                .hasSize(2).allSatisfy(scope -> assertThat(scope).startsWith("credential:sha256:").endsWith(" POST /orders")
                        .doesNotContain("alice").doesNotContain("bob"));
    }

    private static List<HttpResponse<String>> join(List<CompletableFuture<HttpResponse<String>>> calls) throws Exception {
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            responses.add(call.get(90, TimeUnit.SECONDS));
        }
        return responses;
    }

    /** Polls until {@code condition} holds; fails after a minute (a bound, not a timing assertion). */
    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("gave up waiting: " + what);
            }
            Thread.sleep(10);
        }
    }
}
