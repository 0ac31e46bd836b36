package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Execution;
import dev.idem.testing.RawHttp;
import dev.idem.Idem;
import dev.idem.InFlightPolicy;
import dev.idem.StoredResponse;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordState;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Every row of the HTTP semantics table (the README's status table), over real HTTP, a real container and a real database. */
@ParameterizedClass
@EnumSource(Backend.class)
class HttpSemanticsTest extends FilterTestSupport {

    HttpSemanticsTest(Backend backend) {
        super(backend);
    }

    private TestServer paymentsServer(AtomicInteger runs) throws Exception {
        return serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, created(runs)));
    }

    @Test
    void methodsNotCoveredPassThroughUntouched() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            runs.incrementAndGet();
            response.setHeader("X-Method", request.getMethod());
            response.setHeader("X-Has-Execution", Boolean.toString(IdempotencyFilter.execution(request).isPresent()));
            if (!"HEAD".equals(request.getMethod())) {
                response.getWriter().write("ok " + request.getMethod());
            }
        }));

        for (String method : List.of("GET", "HEAD", "OPTIONS", "PUT", "DELETE")) {
            for (String key : new String[] {"same-key", "same-key", ""}) {
                HttpResponse<String> response = send(HttpRequest.newBuilder(server.uri(PAYMENTS))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .header(IdempotencyFilter.DEFAULT_HEADER_NAME, key).build());
                assertThat(response.statusCode()).as(method).isEqualTo(200);
                assertThat(response.headers().firstValue("X-Method")).hasValue(method);
                assertThat(response.headers().firstValue("X-Has-Execution")).hasValue("false");
                assertThat(replayed(response)).as("%s is never replayed", method).isFalse();
            }
        }
        assertThat(runs).as("every request reached the handler, even with a repeated or an empty key").hasValue(15);
        assertThat(rows()).as("nothing stored for uncovered methods").isZero();
    }

    @Test
    void routeNotCoveredByThePolicyPassesThrough() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build())
                .routePolicyResolver(request -> request.getServletPath().equals("/health")
                        ? RoutePolicy.notCovered() : RoutePolicy.required())
                .build();
        TestServer server = serve(filter, Map.of("/health", created(runs)));

        HttpResponse<String> first = send(post(server, "/health", "", "{}").build());
        HttpResponse<String> second = send(post(server, "/health", null, "{}").build());

        assertThat(first.statusCode()).as("even a malformed key is ignored on an uncovered route").isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(runs).hasValue(2);
        assertThat(rows()).isZero();
    }

    @Test
    void keyMissingWhereRequiredIs400AndNothingRuns() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);

        HttpResponse<String> response = send(post(server, PAYMENTS, null, "{\"amount\":100}").build());

        assertProblem(response, 400, "key-missing", "amount");
        assertThat(runs).hasValue(0);
        assertThat(rows()).isZero();
    }

    @Test
    void keyOptionalAndAbsentPassesThroughWithoutIdempotency() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build())
                .routePolicyResolver(RoutePolicyResolver.always(RoutePolicy.optional()))
                .build();
        TestServer server = serve(filter, Map.of(PAYMENTS, created(runs)));

        HttpResponse<String> first = send(post(server, PAYMENTS, null, "{}").build());
        HttpResponse<String> second = send(post(server, PAYMENTS, null, "{}").build());
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).isFalse();
        assertThat(runs).as("without a key each request runs").hasValue(2);
        assertThat(rows()).isZero();

        HttpResponse<String> keyed = send(post(server, PAYMENTS, "optional-1", "{}").build());
        HttpResponse<String> keyedAgain = send(post(server, PAYMENTS, "optional-1", "{}").build());
        assertThat(replayed(keyed)).isFalse();
        assertThat(replayed(keyedAgain)).as("with a key the optional route is idempotent").isTrue();
        assertThat(keyedAgain.body()).isEqualTo(keyed.body());
        assertThat(runs).hasValue(3);
    }

    @Test
    void malformedKeysAre400AndNothingRunsOrIsStored() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);
        String tooLong = "k".repeat(256);
        Map<String, String> malformed = Map.of(
                "empty", "",
                "256 characters", tooLong,
                "a control character (tab)", "key\twith-tab",
                "a space", "with space",
                "an unterminated sf-string", "\"unterminated",
                "a bad sf-string escape", "\"zq91\\x\"");

        for (Map.Entry<String, String> entry : malformed.entrySet()) {
            HttpResponse<String> response = send(post(server, PAYMENTS, entry.getValue(), "{\"amount\":100}").build());
            assertThat(response.statusCode()).as("a key with %s", entry.getKey()).isEqualTo(400);
            assertProblem(response, 400, "key-invalid", "amount", tooLong.substring(0, 32), "caf", "with-tab", "unterminated", "zq91");
        }
        assertThat(runs).as("the handler never ran").hasValue(0);
        assertThat(rows()).as("nothing was stored").isZero();
    }

    @Test
    void keyHeaderSentTwiceIs400() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);

        HttpResponse<String> response = send(post(server, PAYMENTS, "first-value", "{}")
                .header(IdempotencyFilter.DEFAULT_HEADER_NAME, "second-value").build());

        assertProblem(response, 400, "key-invalid", "first-value", "second-value");
        assertThat(runs).hasValue(0);
        assertThat(rows()).isZero();
    }

    /**
     * java.net.http refuses to send control characters other than tab and turns non-ASCII into
     * {@code ?}, so these keys go over a raw socket, as the bytes a broken or hostile client sends.
     */
    @Test
    void controlAndNonAsciiBytesInTheKeyAre4xxAndNothingRuns() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);
        Map<String, byte[]> nonAscii = Map.of(
                "a Latin-1 byte", "caf\u00e9-key".getBytes(StandardCharsets.ISO_8859_1),
                "UTF-8 bytes", "caf\u00e9-key".getBytes(StandardCharsets.UTF_8));
        Map<String, byte[]> control = Map.of(
                "a BEL", "bell\u0007key".getBytes(StandardCharsets.ISO_8859_1),
                "a DEL", "del\u007fkey".getBytes(StandardCharsets.ISO_8859_1));

        for (Map.Entry<String, byte[]> key : nonAscii.entrySet()) {
            String response = rawPost(server, key.getValue());
            assertThat(response).as("non-ASCII: %s", key.getKey()).startsWith("HTTP/1.1 400 ")
                    .contains("application/problem+json", "urn:idem:problem:key-invalid", "non-ASCII character at position 3")
                    .doesNotContain("caf");
        }
        for (Map.Entry<String, byte[]> key : control.entrySet()) {
            // Jetty's parser rejects these header bytes itself, before any filter runs; still a 4xx.
            assertThat(rawPost(server, key.getValue())).as("control character: %s", key.getKey()).matches("(?s)HTTP/1\\.1 4\\d\\d .*");
        }
        assertThat(runs).hasValue(0);
        assertThat(rows()).isZero();
    }

    /** The whole response to a POST whose key header carries {@code key}'s bytes as they are. */
    private static String rawPost(TestServer server, byte[] key) throws Exception {
        return RawHttp.post(server.base(), TestServer.CONTEXT_PATH + PAYMENTS, "Idempotency-Key", key,
                "{}".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void keyOf255VisibleCharactersIsAccepted() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);
        String key = "k".repeat(255);

        HttpResponse<String> response = send(post(server, PAYMENTS, key, "{}").build());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(paymentRecord(key)).isPresent();
    }

    @Test
    void quotedSfStringKeyIsTheSameKeyAsItsBareForm() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);

        HttpResponse<String> quoted = send(post(server, PAYMENTS, "\"order-8c1f\"", "{\"amount\":100}").build());
        HttpResponse<String> bare = send(post(server, PAYMENTS, "order-8c1f", "{\"amount\":100}").build());

        assertThat(quoted.statusCode()).isEqualTo(201);
        assertThat(replayed(quoted)).isFalse();
        assertThat(bare.statusCode()).isEqualTo(201);
        assertThat(replayed(bare)).as("the quotes are not part of the key").isTrue();
        assertThat(bare.body()).isEqualTo(quoted.body());
        assertThat(runs).hasValue(1);
        assertThat(paymentRecord("order-8c1f")).isPresent();
    }

    @Test
    void newKeyRunsTheHandlerStoresItsResponseAndSendsIt() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            // Headers that must not be stored: a hop-by-hop one, a Date, a Content-Length, a cookie.
            response.setHeader("Keep-Alive", "timeout=5");
            response.setHeader("Proxy-Authenticate", "Basic");
            response.setHeader("Date", "Mon, 30 Nov 2026 01:00:00 GMT");
            response.setContentLength(999);
            respondCreated(response, runs.incrementAndGet(), new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }));

        HttpResponse<String> response = send(post(server, PAYMENTS, "new-key-1", "{\"amount\":100}").build());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("{\"run\":1,\"received\":\"{\\\"amount\\\":100}\"}");
        assertThat(response.headers().firstValue("Location")).hasValue("/app/payments/1");
        assertThat(response.headers().firstValue("Set-Cookie")).as("the first caller gets its cookie").hasValueSatisfying(
                cookie -> assertThat(cookie).startsWith("session=s1"));
        assertThat(response.headers().firstValue("Content-Length")).as("recomputed from the body")
                .hasValue(Integer.toString(response.body().getBytes(StandardCharsets.UTF_8).length));
        assertThat(replayed(response)).isFalse();

        IdempotencyRecord record = paymentRecord("new-key-1").orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        StoredResponse stored = record.response().orElseThrow();
        assertThat(stored.status()).isEqualTo(201);
        assertThat(new String(stored.body(), StandardCharsets.UTF_8)).isEqualTo(response.body());
        Set<String> storedNames = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        storedNames.addAll(stored.headers().keySet());
        assertThat(storedNames).contains("Content-Type", "Location", "X-Handler-Run")
                .doesNotContain("Set-Cookie", "Keep-Alive", "Proxy-Authenticate", "Date", "Content-Length");
    }

    @Test
    void completedKeyWithSameFingerprintReplaysTheStoredResponseWithoutItsCookie() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);

        HttpResponse<String> first = send(post(server, PAYMENTS, "replay-1", "{\"amount\":100}").build());
        HttpResponse<String> second = send(post(server, PAYMENTS, "replay-1", "{\"amount\":100}").build());

        assertThat(runs).as("the handler ran once").hasValue(1);
        assertThat(first.headers().allValues("Set-Cookie")).as("the first response had its cookie").hasSize(1);
        assertThat(replayed(first)).isFalse();
        assertThat(second.statusCode()).isEqualTo(first.statusCode());
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(second.headers().firstValue("X-Handler-Run")).hasValue("1");
        assertThat(second.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(second.headers().allValues("Set-Cookie")).as("cookies are not replayed").isEmpty();
    }

    @Test
    void completedKeyWithOtherFingerprintIs422() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);

        HttpResponse<String> first = send(post(server, PAYMENTS, "reused-key", "{\"amount\":100}").build());
        HttpResponse<String> other = send(post(server, PAYMENTS, "reused-key", "{\"amount\":999}").build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertProblem(other, 422, "key-mismatch", "reused-key", "999");
        assertThat(runs).hasValue(1);
        assertThat(paymentRecord("reused-key").orElseThrow().response().orElseThrow().body())
                .as("the stored response is unchanged").isEqualTo(first.body().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void handler4xxIsStoredAndReplayedEvenWhenSentWithSendError() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            response.setHeader("X-Handler-Run", Integer.toString(runs.incrementAndGet()));
            response.sendError(404, "no such order");
        }));

        HttpResponse<String> first = send(post(server, PAYMENTS, "not-found-1", "{}").build());
        IdempotencyRecord record = paymentRecord("not-found-1").orElseThrow();
        HttpResponse<String> retry = send(post(server, PAYMENTS, "not-found-1", "{}").build());

        assertThat(first.statusCode()).isEqualTo(404);
        assertThat(first.body()).as("the first caller gets the container's error page").contains("no such order");
        assertThat(record.state()).as("a 4xx is the answer to this request: stored").isEqualTo(RecordState.COMPLETED);
        assertThat(record.response().orElseThrow().status()).isEqualTo(404);
        assertThat(record.response().orElseThrow().bodyLength()).isZero();
        assertThat(retry.statusCode()).isEqualTo(404);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("X-Handler-Run")).hasValue("1");
        assertThat(runs).hasValue(1);
    }

    @Test
    void keyInProgressIs409WithRetryAfter() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            entered.countDown();
            assertThat(release.await(Events.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
            respondCreated(response, runs.incrementAndGet(), "");
        }));

        CompletableFuture<HttpResponse<String>> first = client.sendAsync(post(server, PAYMENTS, "busy-key", "{}").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(entered.await(Events.PATIENCE_SECONDS, TimeUnit.SECONDS)).as("the first request is running").isTrue();
        HttpResponse<String> duplicate = send(post(server, PAYMENTS, "busy-key", "{}").build());
        release.countDown();
        HttpResponse<String> firstResponse = first.get(Events.PATIENCE_SECONDS, TimeUnit.SECONDS);
        HttpResponse<String> afterwards = send(post(server, PAYMENTS, "busy-key", "{}").build());

        assertProblem(duplicate, 409, "key-in-use", "busy-key");
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValueSatisfying(
                value -> assertThat(Long.parseLong(value)).as("whole seconds, at least 1").isGreaterThanOrEqualTo(1));
        assertThat(duplicate.headers().firstValue("Retry-After")).as("when to look again, not the 30 s lease's end").hasValue("1");
        assertThat(firstResponse.statusCode()).isEqualTo(201);
        assertThat(replayed(afterwards)).isTrue();
        assertThat(afterwards.body()).isEqualTo(firstResponse.body());
        assertThat(runs).hasValue(1);
    }

    @Test
    void keyInProgressWaitsAndReplaysUnderAPerRouteWaitPolicy() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Idem base = idem().build();
        Idem waiting = base.toBuilder().inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(Events.PATIENCE_SECONDS))).build();
        IdempotencyFilter filter = IdempotencyFilter.builder(base)
                .routePolicyResolver(request -> RoutePolicy.required().withIdem(waiting))
                .build();
        TestServer server = serve(filter, Map.of(PAYMENTS, (request, response) -> {
            // Finish only once the duplicate has found the key in progress and is waiting.
            assertThat(events.await(events.conflicts, 1)).isTrue();
            respondCreated(response, runs.incrementAndGet(), "");
        }));

        CompletableFuture<HttpResponse<String>> first = client.sendAsync(post(server, PAYMENTS, "wait-key", "{}").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(events.await(events.claimed, 1)).isTrue();
        HttpResponse<String> duplicate = send(post(server, PAYMENTS, "wait-key", "{}").build());
        HttpResponse<String> firstResponse = first.get(Events.PATIENCE_SECONDS, TimeUnit.SECONDS);

        assertThat(firstResponse.statusCode()).isEqualTo(201);
        assertThat(duplicate.statusCode()).as("the duplicate waited instead of getting 409").isEqualTo(201);
        assertThat(replayed(duplicate)).isTrue();
        assertThat(duplicate.body()).isEqualTo(firstResponse.body());
        assertThat(runs).hasValue(1);
    }

    @Test
    void handlerAnswering5xxReleasesTheKeySoARetryRunsAgain() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            if (run == 1) {
                response.setStatus(503);
                response.setContentType(JSON);
                response.getWriter().write("{\"error\":\"gateway down\"}");
                return;
            }
            respondCreated(response, run, "");
        }));

        HttpResponse<String> failed = send(post(server, PAYMENTS, "retry-5xx", "{}").build());
        boolean keptAfterFailure = paymentRecord("retry-5xx").isPresent();
        HttpResponse<String> retried = send(post(server, PAYMENTS, "retry-5xx", "{}").build());
        HttpResponse<String> replay = send(post(server, PAYMENTS, "retry-5xx", "{}").build());

        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(failed.body()).as("the client still gets the handler's 5xx").isEqualTo("{\"error\":\"gateway down\"}");
        assertThat(keptAfterFailure).as("5xx released the key").isFalse();
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(replayed(retried)).isFalse();
        assertThat(replayed(replay)).isTrue();
        assertThat(runs).hasValue(2);
    }

    @Test
    void handlerThrowingGives500FromTheContainerAndARetryRunsAgain() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            if (run == 1) {
                throw new IllegalStateException("database unavailable");
            }
            respondCreated(response, run, "");
        }));

        HttpResponse<String> failed = send(post(server, PAYMENTS, "retry-throw", "{}").build());
        boolean keptAfterFailure = paymentRecord("retry-throw").isPresent();
        HttpResponse<String> retried = send(post(server, PAYMENTS, "retry-throw", "{}").build());

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(keptAfterFailure).as("the exception released the key").isFalse();
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(retried.headers().firstValue("X-Handler-Run")).hasValue("2");
        assertThat(runs).hasValue(2);
    }

    @Test
    void handlerThatFinishedAPhaseThenThrewIsResumedByTheRetry() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger charges = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            Execution execution = IdempotencyFilter.execution(request).orElseThrow();
            String charge = execution.phase("charge", downstreamKey -> "ch-" + charges.incrementAndGet() + "-" + downstreamKey);
            if (run == 1) {
                throw new IllegalStateException("crashed after the charge");
            }
            response.setStatus(201);
            response.setContentType(JSON);
            response.getWriter().write("{\"charge\":" + quote(charge) + ",\"attempt\":" + execution.attempt()
                    + ",\"resumed\":" + execution.resumed() + "}");
        }));

        HttpResponse<String> failed = send(post(server, PAYMENTS, "phased-1", "{\"amount\":100}").build());
        IdempotencyRecord afterFailure = paymentRecord("phased-1").orElseThrow();
        HttpResponse<String> resumed = send(post(server, PAYMENTS, "phased-1", "{\"amount\":100}").build());

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(afterFailure.state()).as("kept for resumption").isEqualTo(RecordState.IN_PROGRESS);
        assertThat(afterFailure.recoveryPoint()).isPresent();
        assertThat(resumed.statusCode()).isEqualTo(201);
        assertThat(resumed.body()).startsWith("{\"charge\":\"ch-1-charge-").contains("\"attempt\":2", "\"resumed\":true");
        assertThat(charges).as("the finished phase did not run again").hasValue(1);
        assertThat(runs).hasValue(2);
    }

    @Test
    void leaseLostWhileStoringIs409KeyInUseAndARetryGetsTheNewOwnersResult() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch firstEntered = new CountDownLatch(1);
        // A short lease without renewal, so a second request can take the key over from a slow first one.
        Idem shortLease = idem().lease(Duration.ofMillis(300)).renewLeases(false).build();
        TestServer server = serve(IdempotencyFilter.builder(shortLease).build(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            if (run == 1) {
                firstEntered.countDown();
                assertThat(events.await(events.takeovers, 1)).as("the second request took over").isTrue();
            }
            respondCreated(response, run, "");
        }));

        CompletableFuture<HttpResponse<String>> first = client.sendAsync(post(server, PAYMENTS, "slow-key", "{}").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(firstEntered.await(Events.PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> second = send(post(server, PAYMENTS, "slow-key", "{}").build());
        for (int attempt = 0; second.statusCode() == 409 && attempt < 600; attempt++) {
            Thread.sleep(50); // polling until the first lease is over; the assertions do not depend on timing
            second = send(post(server, PAYMENTS, "slow-key", "{}").build());
        }
        HttpResponse<String> firstResponse = first.get(Events.PATIENCE_SECONDS, TimeUnit.SECONDS);
        HttpResponse<String> later = send(post(server, PAYMENTS, "slow-key", "{}").build());

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.headers().firstValue("X-Handler-Run")).hasValue("2");
        // Its handler ran, but its response is not the one that stands: answered as a key in progress.
        assertProblem(firstResponse, 409, "key-in-use", "slow-key");
        assertThat(firstResponse.headers().firstValue("Retry-After")).isPresent();
        assertThat(firstResponse.headers().firstValue("X-Handler-Run")).as("none of the stale owner's response").isEmpty();
        assertThat(replayed(firstResponse)).isFalse();
        assertThat(events.leaseLost.get()).isGreaterThanOrEqualTo(1);
        assertThat(replayed(later)).isTrue();
        assertThat(later.headers().firstValue("X-Handler-Run")).as("the new owner's result is the stored one").hasValue("2");
    }
}
