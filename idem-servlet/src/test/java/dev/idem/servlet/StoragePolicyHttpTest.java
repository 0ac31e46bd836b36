package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.StoragePolicy;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordState;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which handler responses are stored, over real HTTP and a real database: the default
 * {@link StoragePolicy} per status, a filter's own policy, a route's, and the handler's
 * {@code Idempotent-Store: no} for one response. Not stored: the caller still gets the response, the
 * key is released, and a retry runs the handler again. Stored: a retry gets it replayed.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class StoragePolicyHttpTest extends FilterTestSupport {

    StoragePolicyHttpTest(Backend backend) {
        super(backend);
    }

    /** Answers {@code status} with a marker header and body naming the run. */
    private static TestServer.Handler answering(int status, AtomicInteger runs) {
        return (request, response) -> {
            int run = runs.incrementAndGet();
            response.setStatus(status);
            response.setHeader("X-Handler-Run", Integer.toString(run));
            if (status != 204 && status != 304) {
                response.setContentType(JSON);
                response.getWriter().write("{\"run\":" + run + "}");
            }
        };
    }

    private TestServer serveAnswering(IdempotencyFilter filter, int status, AtomicInteger runs) throws Exception {
        return serve(filter, Map.of(PAYMENTS, answering(status, runs)));
    }

    private IdempotencyFilter defaultFilter() {
        return IdempotencyFilter.builder(idem().build()).build();
    }

    @ParameterizedTest(name = "{0} is not stored: the retry runs again")
    @ValueSource(ints = {408, 409, 425, 429, 500, 502, 503, 504})
    void byDefaultANotNowStatusIsNotStoredAndTheRetryRunsTheHandlerAgain(int status) throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serveAnswering(defaultFilter(), status, runs);
        String key = "not-stored-" + status;

        HttpResponse<String> first = send(post(server, PAYMENTS, key, "{}").build());
        boolean keptAfterFirst = paymentRecord(key).isPresent();
        HttpResponse<String> retry = send(post(server, PAYMENTS, key, "{}").build());

        assertThat(first.statusCode()).as("the caller gets the handler's answer").isEqualTo(status);
        assertThat(first.body()).isEqualTo("{\"run\":1}");
        assertThat(keptAfterFirst).as("the key was released").isFalse();
        assertThat(retry.statusCode()).isEqualTo(status);
        assertThat(replayed(retry)).isFalse();
        assertThat(retry.headers().firstValue("X-Handler-Run")).hasValue("2");
        assertThat(runs).hasValue(2);
    }

    @ParameterizedTest(name = "{0} is stored: the retry replays it")
    @ValueSource(ints = {200, 201, 202, 204, 303, 400, 403, 404, 410, 422})
    void byDefaultEveryOtherStatusIsStoredAndReplayed(int status) throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serveAnswering(defaultFilter(), status, runs);
        String key = "stored-" + status;

        HttpResponse<String> first = send(post(server, PAYMENTS, key, "{}").build());
        IdempotencyRecord record = paymentRecord(key).orElseThrow();
        HttpResponse<String> retry = send(post(server, PAYMENTS, key, "{}").build());

        assertThat(first.statusCode()).isEqualTo(status);
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.response().orElseThrow().status()).isEqualTo(status);
        assertThat(retry.statusCode()).isEqualTo(status);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("X-Handler-Run")).hasValue("1");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aFiltersOwnPolicyDecides() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build()).storagePolicy(StoragePolicy.notStoring("5xx")).build();
        TestServer server = serveAnswering(filter, 429, runs);

        send(post(server, PAYMENTS, "custom-429", "{}").build());
        HttpResponse<String> retry = send(post(server, PAYMENTS, "custom-429", "{}").build());

        assertThat(retry.statusCode()).isEqualTo(429);
        assertThat(replayed(retry)).as("this filter stores a 429").isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void aPolicyCanLookAtTheWholeResponse() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        StoragePolicy onlyCreated = StoragePolicy.of(response -> response.headers().containsKey("Location"), "with a Location");
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build()).storagePolicy(onlyCreated).build();
        TestServer server = serve(filter, Map.of(PAYMENTS, created(runs), "/drafts", answering(200, runs)));

        send(post(server, PAYMENTS, "with-location", "{}").build());
        HttpResponse<String> created = send(post(server, PAYMENTS, "with-location", "{}").build());
        send(post(server, "/drafts", "without-location", "{}").build());
        HttpResponse<String> draft = send(post(server, "/drafts", "without-location", "{}").build());

        assertThat(replayed(created)).isTrue();
        assertThat(replayed(draft)).isFalse();
        assertThat(runs).hasValue(3);
    }

    @Test
    void aRoutesPolicyWinsOverTheFilters() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build())
                .storagePolicy(StoragePolicy.notStoring("5xx"))
                .routePolicyResolver(request -> request.getServletPath().equals("/limited")
                        ? RoutePolicy.required().withStoragePolicy(StoragePolicy.defaults()) : RoutePolicy.required())
                .build();
        TestServer server = serve(filter, Map.of(PAYMENTS, answering(429, runs), "/limited", answering(429, runs)));

        send(post(server, PAYMENTS, "route-a", "{}").build());
        HttpResponse<String> filterWide = send(post(server, PAYMENTS, "route-a", "{}").build());
        send(post(server, "/limited", "route-b", "{}").build());
        HttpResponse<String> route = send(post(server, "/limited", "route-b", "{}").build());

        assertThat(replayed(filterWide)).as("the filter's policy stores 429").isTrue();
        assertThat(replayed(route)).as("the route's policy does not").isFalse();
        assertThat(runs).hasValue(3);
    }

    @Test
    void aHandlerDeclinesStorageOfOneResponseAndTheMarkerReachesNeitherClientNorStore() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(defaultFilter(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            respondCreated(response, run, "");
            if (run == 1) {
                response.setHeader(IdempotencyFilter.STORE_HEADER, "no");
            } else {
                response.addHeader("idempotent-store", "maybe"); // any other value: stored, header still removed
            }
        }));

        HttpResponse<String> declined = send(post(server, PAYMENTS, "opt-out", "{}").build());
        boolean keptAfterDeclined = paymentRecord("opt-out").isPresent();
        HttpResponse<String> stored = send(post(server, PAYMENTS, "opt-out", "{}").build());
        IdempotencyRecord record = paymentRecord("opt-out").orElseThrow();
        HttpResponse<String> replay = send(post(server, PAYMENTS, "opt-out", "{}").build());

        assertThat(declined.statusCode()).isEqualTo(201);
        assertThat(declined.headers().firstValue("X-Handler-Run")).hasValue("1");
        assertThat(declined.headers().firstValue("Location")).as("the rest of the response is sent").hasValue("/app/payments/1");
        assertThat(declined.headers().map().keySet()).noneMatch(name -> name.equalsIgnoreCase(IdempotencyFilter.STORE_HEADER));
        assertThat(keptAfterDeclined).as("not stored: the key was released").isFalse();
        assertThat(stored.headers().firstValue("X-Handler-Run")).hasValue("2");
        assertThat(replayed(stored)).isFalse();
        assertThat(stored.headers().map().keySet()).noneMatch(name -> name.equalsIgnoreCase(IdempotencyFilter.STORE_HEADER));
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.response().orElseThrow().headers().keySet())
                .noneMatch(name -> name.equalsIgnoreCase(IdempotencyFilter.STORE_HEADER));
        assertThat(replayed(replay)).isTrue();
        assertThat(replay.headers().map().keySet()).noneMatch(name -> name.equalsIgnoreCase(IdempotencyFilter.STORE_HEADER));
        assertThat(replay.body()).isEqualTo(stored.body());
        assertThat(new String(record.response().orElseThrow().body(), StandardCharsets.UTF_8)).isEqualTo(stored.body());
        assertThat(runs).hasValue(2);
    }

    @Test
    void aDeclinedResponseAfterAFinishedPhaseLetsTheRetryResumeAfterIt() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger charges = new AtomicInteger();
        TestServer server = serve(defaultFilter(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            String charge = IdempotencyFilter.execution(request).orElseThrow()
                    .phase("charge", downstreamKey -> "ch-" + charges.incrementAndGet());
            response.setStatus(run == 1 ? 202 : 201);
            if (run == 1) {
                response.setHeader(IdempotencyFilter.STORE_HEADER, "no");
            }
            response.getWriter().write(charge);
        }));

        HttpResponse<String> accepted = send(post(server, PAYMENTS, "phase-opt-out", "{}").build());
        IdempotencyRecord afterDeclined = paymentRecord("phase-opt-out").orElseThrow();
        HttpResponse<String> done = send(post(server, PAYMENTS, "phase-opt-out", "{}").build());

        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(afterDeclined.state()).as("kept for resumption, its lease ended").isEqualTo(RecordState.IN_PROGRESS);
        assertThat(done.statusCode()).isEqualTo(201);
        assertThat(done.body()).isEqualTo("ch-1");
        assertThat(charges).as("the finished phase did not run again").hasValue(1);
        assertThat(runs).hasValue(2);
    }
}
