package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

/** The filter exactly as docs/webflux.md prints it, serving a retried request (and only the covered route). */
class GettingStartedSampleTest extends WebFilterTestSupport {
    @Test
    void theDocumentedFilterReplaysARetryPerCredential() throws Exception {
        Idem idem = Idem.builder().store(open(StoreBackend.POSTGRESQL).store()).build();
        // sample: webflux-filter
        IdempotencyWebFilter filter = IdempotencyWebFilter.builder(idem)
                .route("POST", "/payments/**")
                .scopeResolver(ExchangeScopeResolver.credentialHeader("Authorization"))
                .maxRequestBytes(64 * 1024)
                .build();
        // end sample
        AtomicInteger runs = new AtomicInteger();
        WebFluxServer server = serve(filter, Map.of("/payments/card", exchange ->
                WebFluxServer.json(exchange, HttpStatus.CREATED, "{\"run\":" + runs.incrementAndGet() + "}")));
        String key = newKey();

        HttpResponse<String> alice = send(server, key, "Bearer alice");
        HttpResponse<String> aliceRetry = send(server, key, "Bearer alice");
        HttpResponse<String> bob = send(server, key, "Bearer bob");

        assertThat(alice.body()).isEqualTo("{\"run\":1}");
        assertThat(aliceRetry.body()).isEqualTo("{\"run\":1}");
        assertThat(aliceRetry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(bob.body()).as("another credential is another scope").isEqualTo("{\"run\":2}");
    }

    private static HttpResponse<String> send(WebFluxServer server, String key, String authorization) throws Exception {
        return client.send(HttpRequest.newBuilder(server.uri("/payments/card")).header("Idempotency-Key", key)
                .header("Authorization", authorization).header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build(), HttpResponse.BodyHandlers.ofString());
    }
}
