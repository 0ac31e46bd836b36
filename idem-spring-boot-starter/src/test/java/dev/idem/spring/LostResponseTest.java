package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The response to a POST is lost on the wire after the server handled it: a {@link DroppingProxy}
 * forwards the request, waits for the server's complete answer, and closes the client's socket
 * without forwarding it, once. What the server does depends on the client's retry.
 */
abstract class LostResponseTest extends AppTest {

    @Test
    void theIdemClientRetriesWithTheSameKeyAndGetsTheReplay() throws Exception {
        String item = fresh("lost");
        IdempotentHttpClient client = IdempotentHttpClient.builder(CLIENT).build();
        try (DroppingProxy proxy = new DroppingProxy(app.base.getPort(), 1)) {

            IdempotentResponse<String> response = client.send(postThrough(proxy, item), HttpResponse.BodyHandlers.ofString());

            assertThat(proxy.droppedResponses()).as("the server answered the first attempt in full; it was lost")
                    .singleElement().satisfies(lost -> assertThat(lost).startsWith("HTTP/1.1 201").contains(item));
            assertThat(app.effects().count(item)).as("exactly one execution").isEqualTo(1);
            assertThat(response.attempts()).isEqualTo(2);
            assertThat(response.statusCode()).isEqualTo(201);
            assertThat(response.replayed()).as("Idempotent-Replayed: true").isTrue();
            assertThat(response.body()).contains(item);
            assertThat(proxy.droppedResponses().get(0)).endsWith(response.body());
        }
    }

    /**
     * The classic bug: a client that makes a new key for each retry. The lost response looks like a
     * failure, the retry looks like a new request, and the order is placed twice.
     */
    @Test
    void aClientThatMakesANewKeyPerRetryExecutesTwice_theClassicBug() throws Exception {
        String item = fresh("lost-new-key");
        try (DroppingProxy proxy = new DroppingProxy(app.base.getPort(), 1)) {
            HttpResponse<String> response = null;
            for (int attempt = 1; attempt <= 2 && response == null; attempt++) {
                HttpRequest request = HttpRequest.newBuilder(postThrough(proxy, item), (name, value) -> !name.equalsIgnoreCase(KEY_HEADER))
                        .header(KEY_HEADER, UUID.randomUUID().toString()) // the bug: a fresh key per attempt
                        .build();
                try {
                    response = send(request);
                } catch (IOException lost) {
                    // the response was lost; "retry"
                }
            }

            assertThat(response).isNotNull();
            assertThat(response.statusCode()).isEqualTo(201);
            assertThat(replayed(response)).as("not a replay: the server saw a new key").isFalse();
            assertThat(app.effects().count(item)).as("two executions: the order was placed twice").isEqualTo(2);
        }
    }

    private HttpRequest postThrough(DroppingProxy proxy, String item) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + "/orders"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofString(itemJson(item), StandardCharsets.UTF_8))
                .build();
    }
}
