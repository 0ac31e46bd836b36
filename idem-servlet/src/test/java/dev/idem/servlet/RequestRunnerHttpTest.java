package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.jdbc.TransactionalIdem;
import dev.idem.spi.RecordState;
import jakarta.servlet.Filter;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A route that brings its own {@link RequestRunner}: here idem's transactional mode, which has no
 * {@code Execution}. The filter's HTTP answers are the same as with its engine; the handler sees no
 * execution; a checked exception the runner wraps reaches the container as the handler threw it.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class RequestRunnerHttpTest extends FilterTestSupport {

    RequestRunnerHttpTest(Backend backend) {
        super(backend);
    }

    /** What the runner was called with, to show the filter hands it the resolved request. */
    private record Call(Scope scope, IdempotencyKey key, Fingerprint fingerprint) {
    }

    private RequestRunner transactional(List<Call> calls) {
        TransactionalIdem tx = TransactionalIdem.of(idem().build());
        return (scope, key, fingerprint, handler) -> {
            calls.add(new Call(scope, key, fingerprint));
            return tx.execute(scope, key, fingerprint, connection -> handler.run(null));
        };
    }

    @Test
    void aRoutesRunnerRunsTheRequestWithTheFiltersAnswersAndNoExecution() throws Exception {
        List<Call> calls = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        List<Boolean> sawExecution = new CopyOnWriteArrayList<>();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build())
                .routePolicyResolver(request -> RoutePolicy.required().withRunner(transactional(calls)))
                .build();
        TestServer server = serve(filter, Map.of(PAYMENTS, (request, response) -> {
            sawExecution.add(IdempotencyFilter.execution(request).isPresent());
            int run = runs.incrementAndGet();
            if (run == 1) {
                response.sendError(503); // not stored under the default failure policy: rolled back
                return;
            }
            respondCreated(response, run, new String(request.getInputStream().readAllBytes()));
        }));

        HttpResponse<String> unavailable = send(post(server, PAYMENTS, "runner-1", "{\"amount\":100}").build());
        boolean recordAfter503 = paymentRecord("runner-1").isPresent();
        HttpResponse<String> first = send(post(server, PAYMENTS, "runner-1", "{\"amount\":100}").build());
        HttpResponse<String> again = send(post(server, PAYMENTS, "runner-1", "{ \"amount\" : 100 }").build());
        HttpResponse<String> other = send(post(server, PAYMENTS, "runner-1", "{\"amount\":999}").build());

        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(recordAfter503).as("a 5xx is not stored: the transaction rolled back").isFalse();
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(first)).isFalse();
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(replayed(again)).isTrue();
        assertThat(again.body()).isEqualTo(first.body());
        assertProblem(other, 422, "key-mismatch", "runner-1", "999");
        assertThat(runs).as("the 503, then one execution").hasValue(2);
        assertThat(sawExecution).as("this runner has no Execution: no phases").containsOnly(false);
        assertThat(paymentRecord("runner-1")).get().extracting(r -> r.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(calls).hasSize(4).allSatisfy(call -> {
            assertThat(call.scope()).isEqualTo(Scope.of(ScopeResolver.ANONYMOUS, PAYMENTS_SCOPE_OPERATION));
            assertThat(call.key()).isEqualTo(IdempotencyKey.of("runner-1"));
        });
        assertThat(calls.get(2).fingerprint()).as("JSON canonicalised before the runner sees it").isEqualTo(calls.get(1).fingerprint());
        assertThat(calls.get(3).fingerprint()).isNotEqualTo(calls.get(1).fingerprint());
    }

    @Test
    void aCheckedExceptionTheRunnerWrapsReachesTheContainerAsTheHandlerThrewIt() throws Exception {
        assertCheckedExceptionPassesThrough(RoutePolicy.required().withRunner(transactional(new CopyOnWriteArrayList<>())), "tx-key");
        assertCheckedExceptionPassesThrough(RoutePolicy.required(), "engine-key"); // Idem wraps it in OperationFailedException
    }

    private void assertCheckedExceptionPassesThrough(RoutePolicy policy, String key) throws Exception {
        IOException thrown = new IOException("the handler's own failure");
        AtomicReference<Throwable> seen = new AtomicReference<>();
        IdempotencyFilter idempotency = IdempotencyFilter.builder(idem().build()).routePolicyResolver(request -> policy).build();
        Filter observing = (request, response, chain) -> {
            try {
                idempotency.doFilter(request, response, chain);
            } catch (IOException | RuntimeException | jakarta.servlet.ServletException e) {
                seen.set(e);
                throw e;
            }
        };
        TestServer server = serve(observing, Map.of(PAYMENTS, (request, response) -> {
            throw thrown;
        }));

        HttpResponse<String> failed = send(post(server, PAYMENTS, key, "{}").build());

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(seen.get()).as("what the container got, with " + policy).isSameAs(thrown);
        assertThat(paymentRecord(key)).as("nothing kept: a retry runs again").isEmpty();
    }
}
