package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import reactor.core.publisher.Mono;

/**
 * The filter's answers over real HTTP (Reactor Netty), on each real store, with BlockHound installed:
 * every request here passing is a request whose store calls never blocked a non-blocking thread.
 */
class IdempotencyWebFilterHttpTest extends WebFilterTestSupport {
    private final AtomicInteger payments = new AtomicInteger();
    private final AtomicInteger flaky = new AtomicInteger();
    private final CompletableFuture<Void> slowEntered = new CompletableFuture<>();
    private final CompletableFuture<Void> slowRelease = new CompletableFuture<>();
    private ThreadRecordingStore store;

    private WebFluxServer start(StoreBackend backend, IdempotencyWebFilter.Builder settings) {
        return serve(settings.build(), routes());
    }

    private Map<String, WebHandler> routes() {
        return Map.of(
                "/payments", this::payment,
                "/slow", exchange -> {
                    payments.incrementAndGet();
                    slowEntered.complete(null);
                    return Mono.fromFuture(slowRelease).then(WebFluxServer.json(exchange, HttpStatus.CREATED, "{\"slow\":true}"));
                },
                "/flaky", (WebHandler) exchange -> flaky.incrementAndGet() == 1
                        ? Mono.error(new IllegalStateException("the handler failed (on purpose)"))
                        : WebFluxServer.json(exchange, HttpStatus.CREATED, "{\"attempt\":" + flaky.get() + "}"));
    }

    private IdempotencyWebFilter.Builder engineOn(StoreBackend backend) {
        store = new ThreadRecordingStore(open(backend).store());
        return filter(Idem.builder().store(store).build());
    }

    /** 201 with a JSON body and a header naming the call, after reading the re-supplied request body. */
    private Mono<Void> payment(ServerWebExchange exchange) {
        return DataBufferUtils.join(exchange.getRequest().getBody())
                .map(buffer -> {
                    String text = buffer.toString(StandardCharsets.UTF_8);
                    DataBufferUtils.release(buffer);
                    return text;
                })
                .defaultIfEmpty("")
                .flatMap(body -> {
                    int n = payments.incrementAndGet();
                    exchange.getResponse().getHeaders().set("X-Payment-Id", "p-" + n);
                    return WebFluxServer.json(exchange, HttpStatus.CREATED, "{\"n\":" + n + ",\"received\":" + body.length() + "}");
                });
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void firstCallExecutesAndTheRetryReplaysIt(StoreBackend backend) throws Exception {
        WebFluxServer server = start(backend, engineOn(backend));
        String key = newKey();
        String body = "{\"amount\":100,\"currency\":\"EUR\"}";

        HttpResponse<String> first = post(server.uri("/payments"), key, body);
        HttpResponse<String> retry = post(server.uri("/payments"), key, body);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("{\"n\":1,\"received\":" + body.length() + "}");
        assertThat(first.headers().firstValue("X-Payment-Id")).hasValue("p-1");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("X-Payment-Id")).hasValue("p-1");
        assertThat(retry.headers().firstValue("Content-Type")).hasValue(JSON);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(payments).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(value = StoreBackend.class, names = "REDIS")
    void answersAdvertiseTheRetentionAndAKeyPastItIs410FromItsTombstone(StoreBackend backend) throws Exception {
        store = new ThreadRecordingStore(open(backend).store());
        WebFluxServer server = start(backend, filter(Idem.builder().store(store).lease(Duration.ofMillis(500))
                .retention(Duration.ofSeconds(1)).tombstones(Duration.ofHours(1)).build()));
        String key = newKey();

        HttpResponse<String> first = post(server.uri("/payments"), key, "{}");
        HttpResponse<String> replay = post(server.uri("/payments"), key, "{}");
        Thread.sleep(2_000); // past the 1 s retention, on Redis' clock as on ours
        HttpResponse<String> late = post(server.uri("/payments"), key, "{}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(late.statusCode()).isEqualTo(410);
        assertThat(late.body()).contains("urn:idem:problem:key-expired").doesNotContain(key);
        for (HttpResponse<String> response : java.util.List.of(first, replay, late)) {
            assertThat(response.headers().allValues("Idempotency-Key-Retention")).as("on the %s", response.statusCode()).containsExactly("1");
        }
        assertThat(payments).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void everyStoreCallRunsOnTheStoreScheduler(StoreBackend backend) throws Exception {
        WebFluxServer server = start(backend, engineOn(backend));
        String key = newKey();

        post(server.uri("/payments"), key, "{}");
        post(server.uri("/payments"), key, "{}");
        post(server.uri("/flaky"), newKey(), "{}");

        assertThat(store.threads).isNotEmpty()
                .anyMatch(call -> call.startsWith("complete"))
                .anyMatch(call -> call.startsWith("release"))
                .allMatch(call -> call.contains(" on boundedElastic-"), "on the default store scheduler, never an event loop");
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void theSameKeyWithAnotherBodyIs422AndJsonIsComparedCanonically(StoreBackend backend) throws Exception {
        WebFluxServer server = start(backend, engineOn(backend));
        String key = newKey();

        HttpResponse<String> first = post(server.uri("/payments"), key, "{\"a\":1,\"b\":2}");
        HttpResponse<String> reordered = post(server.uri("/payments"), key, "{ \"b\" : 2, \"a\" : 1 }");
        HttpResponse<String> other = post(server.uri("/payments"), key, "{\"a\":1,\"b\":3}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(reordered.statusCode()).isEqualTo(201);
        assertThat(reordered.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(other.body()).contains("urn:idem:problem:key-mismatch");
        assertThat(payments).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void aClientThatGoesAwayWhileTheHandlerRunsLeavesOneEffectAndItsRetryGetsTheStoredResponse(StoreBackend backend) throws Exception {
        IdempotencyWebFilter idempotency = engineOn(backend).build();
        CompletableFuture<Void> exchangeCancelled = new CompletableFuture<>();
        WebFilter watching = (exchange, chain) -> idempotency.filter(exchange, chain).doOnCancel(() -> exchangeCancelled.complete(null));
        WebFluxServer server = serve(watching, routes());
        String key = newKey();

        try (Socket socket = new Socket("127.0.0.1", server.uri("/").getPort())) {
            socket.getOutputStream().write(("POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            slowEntered.get(30, TimeUnit.SECONDS);
        } // the client goes away while the handler runs
        exchangeCancelled.get(30, TimeUnit.SECONDS);
        slowRelease.complete(null);

        HttpResponse<String> retry = post(server.uri("/slow"), key, "{}");
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); retry.statusCode() == 409 && System.nanoTime() < deadline; ) {
            Thread.sleep(50); // the handler is still finishing: the key is in use until its response is stored
            retry = post(server.uri("/slow"), key, "{}");
        }
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo("{\"slow\":true}");
        assertThat(payments).as("the handler's effect, made once though its first client went away").hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void aDuplicateWhileTheFirstRunsIs409WithRetryAfterAndTheHandlerRunsOnce(StoreBackend backend) throws Exception {
        WebFluxServer server = start(backend, engineOn(backend));
        String key = newKey();

        CompletableFuture<HttpResponse<String>> first = client.sendAsync(HttpRequest.newBuilder(server.uri("/slow"))
                .timeout(Duration.ofSeconds(60)).header("Idempotency-Key", key).header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        slowEntered.get(30, TimeUnit.SECONDS);
        HttpResponse<String> duplicate = post(server.uri("/slow"), key, "{}");
        slowRelease.complete(null);

        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Integer.parseInt(v)).isPositive());
        assertThat(duplicate.body()).contains("urn:idem:problem:key-in-use");
        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(payments).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void aMissingOrInvalidKeyIs400AndAnOptionalKeyPassesThrough(StoreBackend backend) throws Exception {
        WebFluxServer required = start(backend, engineOn(backend));

        HttpResponse<String> missing = post(required.uri("/payments"), null, "{}");
        HttpResponse<String> tooLong = post(required.uri("/payments"), "k".repeat(256), "{}");
        HttpResponse<String> twice = client.send(HttpRequest.newBuilder(required.uri("/payments"))
                .header("Idempotency-Key", "a").header("Idempotency-Key", "b").header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("urn:idem:problem:key-missing");
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(tooLong.body()).contains("urn:idem:problem:key-invalid").doesNotContain("kkkk");
        assertThat(twice.statusCode()).isEqualTo(400);
        assertThat(twice.body()).contains("urn:idem:problem:key-invalid");
        assertThat(payments).hasValue(0);

        WebFluxServer optional = serve(filter(Idem.builder().store(store).build()).keyRequired(false).build(),
                Map.of("/payments", this::payment));
        assertThat(post(optional.uri("/payments"), null, "{}").statusCode()).isEqualTo(201);
        assertThat(post(optional.uri("/payments"), null, "{}").headers().firstValue("X-Payment-Id")).hasValue("p-2");
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void malformedJsonIs400ProblemAndRunsNothing(StoreBackend backend) throws Exception {
        WebFluxServer server = start(backend, engineOn(backend));

        HttpResponse<String> malformed = post(server.uri("/payments"), newKey(), "{\"amount\":");

        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(malformed.body()).contains("urn:idem:problem:malformed-json").doesNotContain("amount");
        assertThat(payments).hasValue(0);
        assertThat(store.threads).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void aBodyOverTheLimitIs413(StoreBackend backend) throws Exception {
        WebFluxServer server = start(backend, engineOn(backend).maxRequestBytes(16));

        HttpResponse<String> large = post(server.uri("/payments"), newKey(), "{\"pad\":\"" + "x".repeat(100) + "\"}");

        assertThat(large.statusCode()).isEqualTo(413);
        assertThat(large.body()).contains("urn:idem:problem:request-too-large");
        assertThat(payments).hasValue(0);
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void aHandlerErrorGivesTheKeyBackSoTheRetryRuns(StoreBackend backend) throws Exception {
        WebFluxServer server = start(backend, engineOn(backend));
        String key = newKey();

        HttpResponse<String> failed = post(server.uri("/flaky"), key, "{}");
        HttpResponse<String> retry = post(server.uri("/flaky"), key, "{}");

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo("{\"attempt\":2}");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(flaky).hasValue(2);
    }
}
