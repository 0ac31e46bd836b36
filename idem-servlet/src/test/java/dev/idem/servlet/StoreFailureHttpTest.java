package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Execution;
import dev.idem.Idem;
import dev.idem.StoreException;
import dev.idem.spi.RecordState;
import jakarta.servlet.ServletException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Store and lease failures over real HTTP: the real JDBC store wrapped in a {@link FailingStore} that
 * fails a chosen operation. Every such failure is answered 503 {@code store-unavailable} (or, for a
 * lost lease, 409 {@code key-in-use}) with {@code Retry-After}, never with the handler's response and
 * never with the container's error page; a retry with the same key once the store is back runs the
 * handler once.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class StoreFailureHttpTest extends FilterTestSupport {
    private FailingStore failing;

    StoreFailureHttpTest(Backend backend) {
        super(backend);
    }

    private Idem.Builder failingIdem() {
        failing = new FailingStore(store);
        return Idem.builder().store(failing).listener(events);
    }

    private TestServer server(Idem idem, TestServer.Handler handler) throws Exception {
        return serve(IdempotencyFilter.builder(idem).build(), Map.of(PAYMENTS, handler));
    }

    /** Retries while the key is in progress (until the failed owner's lease is over); polling, not timing. */
    private HttpResponse<String> retryUntilNotInProgress(TestServer server, String key, String json) throws Exception {
        HttpResponse<String> response = send(post(server, PAYMENTS, key, json).build());
        for (int attempt = 0; response.statusCode() == 409 && attempt < 600; attempt++) {
            Thread.sleep(50);
            response = send(post(server, PAYMENTS, key, json).build());
        }
        return response;
    }

    private static void assertRetryAfter(HttpResponse<String> response, String seconds) {
        assertThat(response.headers().firstValue("Retry-After")).hasValue(seconds);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
    }

    private static void assertNoneOfTheHandlersHeaders(HttpResponse<String> response) {
        assertThat(response.headers().firstValue("Location")).isEmpty();
        assertThat(response.headers().firstValue("X-Handler-Run")).isEmpty();
        assertThat(response.headers().firstValue("Set-Cookie")).isEmpty();
        assertThat(replayed(response)).isFalse();
    }

    @Test
    void storeFailingAtTheClaimIs503WithRetryAfterAndARetryRunsTheHandlerOnce() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = server(failingIdem().build(), created(runs));
        failing.fail(FailingStore.Op.CLAIM, 1);

        HttpResponse<String> failed = send(post(server, PAYMENTS, "claim-down-1", "{\"amount\":100}").build());
        int runsWhileDown = runs.get();
        int rowsWhileDown = rows();
        HttpResponse<String> retried = send(post(server, PAYMENTS, "claim-down-1", "{\"amount\":100}").build());
        HttpResponse<String> replay = send(post(server, PAYMENTS, "claim-down-1", "{\"amount\":100}").build());

        assertProblem(failed, 503, "store-unavailable", "claim-down-1", "amount", "Connection refused");
        assertRetryAfter(failed, "2");
        assertThat(runsWhileDown).as("nothing ran").isZero();
        assertThat(rowsWhileDown).isZero();
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(replayed(retried)).isFalse();
        assertThat(replayed(replay)).isTrue();
        assertThat(replay.body()).isEqualTo(retried.body());
        assertThat(runs).as("the retry ran the handler once").hasValue(1);
    }

    @Test
    void theRetryAfterOfFailuresIsConfigurable() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(failingIdem().build()).failureRetryAfter(Duration.ofMillis(4500)).build();
        TestServer server = serve(filter, Map.of(PAYMENTS, created(runs)));
        failing.fail(FailingStore.Op.CLAIM, 1);

        HttpResponse<String> failed = send(post(server, PAYMENTS, "claim-down-2", "{}").build());

        assertProblem(failed, 503, "store-unavailable", "claim-down-2");
        assertRetryAfter(failed, "5");
    }

    @Test
    void completionFailingIs503NotTheHandlersResponseAndTheKeyStaysInProgressUntilItsLeaseEnds() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = server(failingIdem().lease(Duration.ofSeconds(3)).build(), created(runs));
        failing.fail(FailingStore.Op.COMPLETE, 1);

        HttpResponse<String> failed = send(post(server, PAYMENTS, "complete-down", "{\"amount\":100}").build());
        RecordState afterFailure = paymentRecord("complete-down").orElseThrow().state();
        HttpResponse<String> early = send(post(server, PAYMENTS, "complete-down", "{\"amount\":100}").build());
        HttpResponse<String> retried = retryUntilNotInProgress(server, "complete-down", "{\"amount\":100}");
        HttpResponse<String> replay = send(post(server, PAYMENTS, "complete-down", "{\"amount\":100}").build());

        assertProblem(failed, 503, "store-unavailable", "complete-down", "amount", "received");
        assertRetryAfter(failed, "2");
        assertNoneOfTheHandlersHeaders(failed);
        assertThat(afterFailure).as("not released: the store just failed").isEqualTo(RecordState.IN_PROGRESS);
        assertProblem(early, 409, "key-in-use", "complete-down");
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.headers().firstValue("X-Handler-Run")).as("taken over after the lease").hasValue("2");
        assertThat(events.takeovers.get()).isEqualTo(1);
        assertThat(replayed(replay)).isTrue();
        assertThat(runs).hasValue(2);
    }

    @Test
    void aCheckpointFailingInsideTheHandlerIs503EvenWrappedAsAFrameworkWouldWrapIt() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger charges = new AtomicInteger();
        TestServer server = server(failingIdem().build(), (request, response) -> {
            int run = runs.incrementAndGet();
            Execution execution = IdempotencyFilter.execution(request).orElseThrow();
            String charge;
            try {
                charge = execution.phase("charge", downstreamKey -> "ch-" + charges.incrementAndGet());
            } catch (StoreException e) {
                throw new ServletException("Request processing failed: " + e, e); // as Spring MVC wraps it
            }
            response.setStatus(201);
            response.setHeader("X-Handler-Run", Integer.toString(run));
            response.getWriter().write(charge);
        });
        failing.fail(FailingStore.Op.CHECKPOINT, 1);

        HttpResponse<String> failed = send(post(server, PAYMENTS, "checkpoint-down", "{}").build());
        boolean keptAfterFailure = paymentRecord("checkpoint-down").isPresent();
        HttpResponse<String> retried = send(post(server, PAYMENTS, "checkpoint-down", "{}").build());
        HttpResponse<String> replay = send(post(server, PAYMENTS, "checkpoint-down", "{}").build());

        assertProblem(failed, 503, "store-unavailable", "checkpoint-down", "Connection refused");
        assertRetryAfter(failed, "2");
        assertThat(keptAfterFailure).as("no phase was recorded: the key was released").isFalse();
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.headers().firstValue("X-Handler-Run")).hasValue("2");
        assertThat(retried.body()).as("the unrecorded phase ran again (its downstream key makes that safe)").isEqualTo("ch-2");
        assertThat(replay.body()).isEqualTo("ch-2");
        assertThat(replayed(replay)).isTrue();
        assertThat(runs).hasValue(2);
    }

    @Test
    void releaseFailingAfterAResponseThatIsNotStoredIs503AndTheKeyWaitsForItsLease() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = server(failingIdem().lease(Duration.ofSeconds(1)).build(), (request, response) -> {
            int run = runs.incrementAndGet();
            if (run == 1) {
                response.setStatus(429);
                response.setHeader("X-Handler-Run", "1");
                return;
            }
            respondCreated(response, run, "");
        });
        failing.fail(FailingStore.Op.RELEASE, 1);

        HttpResponse<String> failed = send(post(server, PAYMENTS, "release-down", "{}").build());
        RecordState afterFailure = paymentRecord("release-down").orElseThrow().state();
        HttpResponse<String> retried = retryUntilNotInProgress(server, "release-down", "{}");

        assertProblem(failed, 503, "store-unavailable", "release-down");
        assertNoneOfTheHandlersHeaders(failed);
        assertThat(afterFailure).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.headers().firstValue("X-Handler-Run")).hasValue("2");
        assertThat(runs).hasValue(2);
    }

    @Test
    void aLeaseLostAtCompletionIs409KeyInUseNotTheHandlersResponse() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = server(failingIdem().build(), created(runs));
        failing.loseLease(FailingStore.Op.COMPLETE);

        HttpResponse<String> lost = send(post(server, PAYMENTS, "lost-at-complete", "{\"amount\":100}").build());

        assertProblem(lost, 409, "key-in-use", "lost-at-complete", "amount");
        assertRetryAfter(lost, "2");
        assertNoneOfTheHandlersHeaders(lost);
        assertThat(events.leaseLost.get()).isEqualTo(1);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aLeaseLostAtACheckpointIs409KeyInUse() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = server(failingIdem().build(), (request, response) -> {
            runs.incrementAndGet();
            IdempotencyFilter.execution(request).orElseThrow().phase("charge", downstreamKey -> "charged");
            response.setStatus(201);
        });
        failing.loseLease(FailingStore.Op.CHECKPOINT);

        HttpResponse<String> lost = send(post(server, PAYMENTS, "lost-at-checkpoint", "{}").build());

        assertProblem(lost, 409, "key-in-use", "lost-at-checkpoint");
        assertRetryAfter(lost, "2");
        assertThat(events.leaseLost.get()).isEqualTo(1);
    }

    @Test
    void aHandlersOwnExceptionOutranksAFailedRelease() throws Exception {
        TestServer server = server(failingIdem().build(), (request, response) -> {
            throw new IllegalStateException("the handler's own failure");
        });
        failing.fail(FailingStore.Op.RELEASE, 1);

        HttpResponse<String> failed = send(post(server, PAYMENTS, "handler-and-release-down", "{}").build());

        assertThat(failed.statusCode()).as("the container's answer to the handler's exception").isEqualTo(500);
        assertThat(failed.body()).doesNotContain("store-unavailable");
        assertThat(paymentRecord("handler-and-release-down").orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    }
}
