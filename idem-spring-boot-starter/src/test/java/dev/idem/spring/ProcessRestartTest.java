package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Sqlite;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The application process dies between two retries of one request, and a new process on the same
 * store (a SQLite file on disk) answers the retry: from the store, not by running the handler again.
 * The application runs as a child JVM killed with SIGKILL; its effects are appended to a file, so
 * they can be counted across processes.
 */
class ProcessRestartTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    @Test
    void aRetryAfterTheProcessWasKilledAndRestartedReplaysTheStoredResponse() throws Exception {
        String jdbcUrl = Sqlite.url(dir.resolve("orders.db"));
        Path effects = dir.resolve("effects.log");
        String key = UUID.randomUUID().toString();
        String item = "restart-" + UUID.randomUUID();
        long firstPid;

        try (ChildApp first = ChildApp.start(dir, jdbcUrl, effects);
             DroppingProxy proxy = new DroppingProxy(first.port(), 1)) {
            firstPid = first.pid();
            // Attempt 1: the server runs it and answers, the answer is lost on the wire.
            assertThatThrownBy(() -> send(URI.create("http://127.0.0.1:" + proxy.port() + "/orders"), key, item))
                    .isInstanceOf(IOException.class);
            assertThat(proxy.droppedResponses()).singleElement().satisfies(lost -> assertThat(lost).startsWith("HTTP/1.1 201"));
            assertThat(effectsOf(effects, item)).as("the order was placed").isEqualTo(1);

            first.kill(); // the process dies before the client retries
        }

        try (ChildApp second = ChildApp.start(dir, jdbcUrl, effects)) {
            assertThat(second.pid()).isNotEqualTo(firstPid);

            // Attempt 2, same key, to the new process.
            HttpResponse<String> retry = send(second.uri("/orders"), key, item);

            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            JsonNode body = JsonMapper.shared().readTree(retry.body());
            assertThat(body.get("item").asString()).isEqualTo(item);
            assertThat(body.get("pid").asLong()).as("the answer of the killed process, from the store").isEqualTo(firstPid);
            assertThat(effectsOf(effects, item)).as("the handler did not run again").isEqualTo(1);

            // The new process is live: a new key runs there.
            String newItem = "after-restart-" + UUID.randomUUID();
            HttpResponse<String> fresh = send(second.uri("/orders"), UUID.randomUUID().toString(), newItem);
            assertThat(fresh.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(JsonMapper.shared().readTree(fresh.body()).get("pid").asLong()).isEqualTo(second.pid());
            assertThat(effectsOf(effects, newItem)).isEqualTo(1);
        }
    }

    private static HttpResponse<String> send(URI uri, String key, String item) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"" + item + "\"}", StandardCharsets.UTF_8))
                .build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** How many runs of {@code item} the effects file records, across processes. */
    static long effectsOf(Path effects, String item) throws IOException {
        if (!Files.exists(effects)) {
            return 0;
        }
        List<String> lines = Files.readAllLines(effects, StandardCharsets.UTF_8);
        return lines.stream().filter(line -> line.startsWith(item + " ")).count();
    }
}
