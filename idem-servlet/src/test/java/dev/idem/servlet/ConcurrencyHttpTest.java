package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import dev.idem.InFlightPolicy;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 32 identical requests at once. The handler finishes only after the engine has reported all 31
 * duplicates as conflicts, so every duplicate really arrived while the first one ran; the outcome is
 * then deterministic, with no timing in any assertion.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class ConcurrencyHttpTest extends FilterTestSupport {
    private static final int CALLERS = 32;

    ConcurrencyHttpTest(Backend backend) {
        super(backend);
    }

    private TestServer server(Idem idem, AtomicInteger runs) throws Exception {
        return serve(IdempotencyFilter.builder(idem).build(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            assertThat(events.await(events.conflicts, CALLERS - 1)).as("all duplicates arrived while this ran").isTrue();
            respondCreated(response, run, new String(request.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        }));
    }

    private List<HttpResponse<String>> fire(TestServer server, String key) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            calls.add(client.sendAsync(post(server, PAYMENTS, key, "{\"amount\":100}").build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            responses.add(call.get(2 * Events.PATIENCE_SECONDS, TimeUnit.SECONDS));
        }
        return responses;
    }

    @Test
    void withTheWaitPolicyAllCallersGetTheSameResponseFromOneExecution() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = server(idem().inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(2 * Events.PATIENCE_SECONDS))).build(), runs);

        List<HttpResponse<String>> responses = fire(server, "concurrent-wait");

        assertThat(runs).as("the handler ran once").hasValue(1);
        HttpResponse<String> any = responses.get(0);
        assertThat(responses).allSatisfy(response -> {
            assertThat(response.statusCode()).isEqualTo(201);
            assertThat(response.body()).isEqualTo(any.body());
            assertThat(response.headers().firstValue("Location")).isEqualTo(any.headers().firstValue("Location"));
        });
        assertThat(responses.stream().filter(response -> !replayed(response)).count()).as("one execution, the rest replays").isEqualTo(1);
        assertThat(paymentRecord("concurrent-wait")).isPresent();
    }

    @Test
    void withTheRejectPolicyOneCallerGetsTheResultAndTheOthers409WithRetryAfter() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = server(idem().inFlightPolicy(InFlightPolicy.reject()).build(), runs);

        List<HttpResponse<String>> responses = fire(server, "concurrent-reject");

        assertThat(runs).as("the handler ran once").hasValue(1);
        List<HttpResponse<String>> executed = responses.stream().filter(r -> r.statusCode() == 201 && !replayed(r)).toList();
        List<HttpResponse<String>> rejected = responses.stream().filter(r -> r.statusCode() == 409).toList();
        assertThat(executed).hasSize(1);
        assertThat(rejected).as("every duplicate arrived while the key was in progress").hasSize(CALLERS - 1);
        assertThat(rejected).allSatisfy(response -> {
            assertProblem(response, 409, "key-in-use", "concurrent-reject");
            assertThat(Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow())).isGreaterThanOrEqualTo(1);
        });

        HttpResponse<String> retry = send(post(server, PAYMENTS, "concurrent-reject", "{\"amount\":100}").build());
        assertThat(replayed(retry)).as("a retry after completion gets the result").isTrue();
        assertThat(retry.body()).isEqualTo(executed.get(0).body());
        assertThat(runs).hasValue(1);
    }
}
