package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Idem;
import dev.idem.client.IdempotentRequestFailedException;
import dev.idem.client.RetryRules;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The WebClient filter against idem's own server filter over PostgreSQL, through a proxy that loses
 * responses, with BlockHound installed: retries keep one key, the server runs the effect once, and
 * the client's waiting never blocks a non-blocking thread.
 */
class IdempotentWebClientFilterHttpTest extends WebFilterTestSupport {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String AMOUNT = "{\"amount\":100}";

    /** What reached the server, in order: method and key header (null when none). */
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private final AtomicInteger effects = new AtomicInteger();
    /** How many of the next requests the server turns away with 503 before idem's filter sees them. */
    private final AtomicInteger unavailable = new AtomicInteger();
    private final CompletableFuture<Void> conflictAnswered = new CompletableFuture<>();
    /** The key lifetime the turned-away answers advertise, or null for none. */
    private volatile String advertisedLifetime;
    private LossyProxy proxy;

    record Arrival(String method, String key) {
    }

    private void startServer() throws IOException {
        IdempotencyWebFilter idem = filter(Idem.builder().store(open(StoreBackend.POSTGRESQL).store()).build()).build();
        WebFilter front = (exchange, chain) -> {
            arrivals.add(new Arrival(exchange.getRequest().getMethod().name(),
                    exchange.getRequest().getHeaders().getFirst("Idempotency-Key")));
            if (unavailable.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                exchange.getResponse().getHeaders().set("Retry-After", "1");
                if (advertisedLifetime != null) {
                    exchange.getResponse().getHeaders().set(RetryRules.RETENTION_HEADER, advertisedLifetime);
                }
                return WebFluxServer.json(exchange, HttpStatus.SERVICE_UNAVAILABLE, "{\"down\":true}");
            }
            return idem.filter(exchange, chain).then(Mono.fromRunnable(() -> {
                if (HttpStatus.CONFLICT.equals(exchange.getResponse().getStatusCode())) {
                    conflictAnswered.complete(null);
                }
            }));
        };
        WebFluxServer server = serve(front, Map.of(
                "/payments", this::payment,
                // Runs until the server has answered a retry "409 key in use": the first attempt must outlast its timeout.
                "/slow-payments", exchange -> {
                    effects.incrementAndGet();
                    return Mono.fromFuture(conflictAnswered).then(WebFluxServer.json(exchange, HttpStatus.CREATED, "{\"slow\":true}"));
                },
                "/balance", exchange -> WebFluxServer.json(exchange, HttpStatus.OK, "{\"balance\":7}")));
        proxy = closing(new LossyProxy(server.uri("/")));
    }

    private Mono<Void> payment(ServerWebExchange exchange) {
        return DataBufferUtils.join(exchange.getRequest().getBody()).map(buffer -> {
            String text = buffer.toString(StandardCharsets.UTF_8);
            DataBufferUtils.release(buffer);
            return text;
        }).flatMap(body -> WebFluxServer.json(exchange, HttpStatus.CREATED,
                "{\"n\":" + effects.incrementAndGet() + ",\"received\":" + body.length() + "}"));
    }

    private static IdempotentWebClientFilter.Builder retrying() {
        return IdempotentWebClientFilter.builder().rules(RetryRules.builder().maxAttempts(5)
                .deadline(Duration.ofSeconds(20)).backoff(Duration.ofMillis(20), Duration.ofMillis(200)).build());
    }

    private WebClient client(IdempotentWebClientFilter filter) {
        return WebClient.builder().baseUrl(proxy.uri("").toString()).filter(filter).build();
    }

    private static ResponseEntity<String> post(WebClient client, String path, String key, String body) {
        return client.post().uri(path).headers(h -> {
                    if (key != null) {
                        h.set("Idempotency-Key", key);
                    }
                }).header("Content-Type", JSON).bodyValue(body)
                .retrieve().toEntity(String.class).block(PATIENCE);
    }

    private List<Arrival> posts() {
        return arrivals.stream().filter(a -> a.method().equals("POST")).toList();
    }

    /** With the client exactly as docs/webflux.md prints it. */
    @Test
    void aLostResponseIsRetriedWithTheSameKeyAndReplayed() throws Exception {
        startServer();
        proxy.dropNextResponse();
        // sample: webclient-filter
        WebClient client = WebClient.builder()
                .filter(IdempotentWebClientFilter.builder()
                        .rules(RetryRules.builder().maxAttempts(5).deadline(Duration.ofSeconds(10)).build())
                        .build())
                .build();
        // end sample

        ResponseEntity<String> paid = post(client.mutate().baseUrl(proxy.uri("").toString()).build(), "/payments", null, AMOUNT);

        assertThat(paid.getStatusCode().value()).isEqualTo(201);
        assertThat(paid.getBody()).as("the first run's stored body, request body re-sent").isEqualTo("{\"n\":1,\"received\":14}");
        assertThat(paid.getHeaders().getFirst("Idempotent-Replayed")).isEqualTo("true");
        assertThat(effects).hasValue(1);
        assertThat(posts()).hasSize(2);
        assertThat(posts().get(0).key()).isNotNull().isEqualTo(posts().get(1).key());
    }

    @Test
    void aRetryThatFindsTheFirstRunInProgressPollsUntilItsReplay() throws Exception {
        startServer();
        IdempotentWebClientFilter filter = retrying().attemptTimeout(Duration.ofSeconds(2)).build();

        ResponseEntity<String> paid = post(client(filter), "/slow-payments", null, AMOUNT);

        assertThat(paid.getStatusCode().value()).isEqualTo(201);
        assertThat(paid.getBody()).isEqualTo("{\"slow\":true}");
        assertThat(paid.getHeaders().getFirst("Idempotent-Replayed")).isEqualTo("true");
        assertThat(conflictAnswered).as("a retry was answered 409 key-in-use").isDone();
        assertThat(effects).hasValue(1);
        assertThat(posts()).hasSizeGreaterThanOrEqualTo(3).extracting(Arrival::key).containsOnly(posts().get(0).key());
    }

    @Test
    void a503WithRetryAfterIsRetried() throws Exception {
        startServer();
        unavailable.set(1);
        WebClient client = client(retrying().build());

        // Called from a non-blocking thread, as a WebFlux handler calls it: making the key must not block (BlockHound).
        ResponseEntity<String> paid = Mono.defer(() -> client.post().uri("/payments").header("Content-Type", JSON)
                        .bodyValue(AMOUNT).retrieve().toEntity(String.class))
                .subscribeOn(Schedulers.parallel()).block(PATIENCE);

        assertThat(paid.getStatusCode().value()).isEqualTo(201);
        assertThat(paid.getHeaders().getFirst("Idempotent-Replayed")).as("the 503 ran nothing").isNull();
        assertThat(effects).hasValue(1);
        assertThat(posts()).hasSize(2).extracting(Arrival::key).containsOnly(posts().get(0).key());
    }

    @Test
    void a422KeyMismatchIsFinalAndSurfaced() throws Exception {
        startServer();
        WebClient client = client(retrying().build());
        String key = newKey();
        post(client, "/payments", key, AMOUNT);

        assertThatThrownBy(() -> post(client, "/payments", key, "{\"amount\":999}"))
                .isInstanceOfSatisfying(WebClientResponseException.class, e -> {
                    assertThat(e.getStatusCode().value()).isEqualTo(422);
                    assertThat(e.getResponseBodyAsString()).contains("key-mismatch");
                });
        assertThat(posts()).as("one attempt each, the caller's key verbatim").hasSize(2)
                .extracting(Arrival::key).containsOnly(key);
        assertThat(effects).hasValue(1);
    }

    @Test
    void aGetPassesThroughWithoutAKey() throws Exception {
        startServer();

        String balance = client(retrying().build()).get().uri("/balance").retrieve().bodyToMono(String.class).block(PATIENCE);

        assertThat(balance).isEqualTo("{\"balance\":7}");
        assertThat(arrivals).containsExactly(new Arrival("GET", null));
    }

    @Test
    void noResponseAtAllEndsInTheClientsFailureWithTheKey() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        WebClient client = WebClient.builder().baseUrl("http://127.0.0.1:" + closedPort).filter(retrying()
                .rules(RetryRules.builder().maxAttempts(3).backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build())
                .build()).build();

        assertThatThrownBy(() -> client.post().uri("/payments").bodyValue(AMOUNT).retrieve().toBodilessEntity().block(PATIENCE))
                .isInstanceOfSatisfying(IdempotentRequestFailedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(IdempotentRequestFailedException.Reason.ATTEMPTS_EXHAUSTED);
                    assertThat(e.attempts()).isEqualTo(3);
                    assertThat(e.key()).isPresent();
                    assertThat(e.getMessage()).doesNotContain(e.key().get());
                });
    }

    @Test
    void aRetryPastTheAdvertisedKeyLifetimeIsNotMadeAndTheFailureNamesTheReason() throws Exception {
        startServer();
        unavailable.set(1_000);
        advertisedLifetime = "2"; // with Retry-After 1: the retry after the attempt at about 1 s would start at 2 s

        assertThatThrownBy(() -> post(client(retrying().build()), "/payments", null, AMOUNT))
                .isInstanceOfSatisfying(IdempotentRequestFailedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(IdempotentRequestFailedException.Reason.KEY_LIFETIME_PASSED);
                    assertThat(e.attempts()).as("below maxAttempts 5").isLessThan(5).isEqualTo(posts().size());
                    assertThat(e.getMessage()).contains("status 503").doesNotContain(e.key().orElseThrow());
                });
        assertThat(posts()).extracting(Arrival::key).as("one key throughout").containsOnly(posts().get(0).key());
        assertThat(effects).hasValue(0);
    }

    @Test
    void theBuilderAndTheFilterRefuseBadInputNamingIt() throws Exception {
        assertThatThrownBy(() -> IdempotentWebClientFilter.builder().methods())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one method");
        assertThatThrownBy(() -> IdempotentWebClientFilter.builder().rules(null)).hasMessage("rules is null");
        assertThatThrownBy(() -> IdempotentWebClientFilter.builder().headerName("Idem Key"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("headerName");
        assertThatThrownBy(() -> IdempotentWebClientFilter.builder().attemptTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attemptTimeout must be positive");
        startServer();

        assertThatThrownBy(() -> post(client(retrying().build()), "/payments", "bad key-secret", AMOUNT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idempotency key is invalid")
                .hasMessageNotContaining("secret");
        assertThat(arrivals).as("nothing was sent").isEmpty();
    }
}
