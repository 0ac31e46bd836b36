package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A response far larger than the cap and than the heap: the filter must neither hold it in memory
 * nor let a failure after the handler ran give the key back. The server runs in a child JVM with a
 * 64 MiB heap and answers 96 MiB; buffering that body whole would end in an {@code OutOfMemoryError}.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class LargeResponseHttpTest {
    private static final String HEAP = "-Xmx64m";
    private static final long BODY_BYTES = 96L * 1024 * 1024;

    private final Backend backend;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Process child;
    private Path log;

    @TempDir
    Path dir;

    LargeResponseHttpTest(Backend backend) {
        this.backend = backend;
    }

    @AfterEach
    void stopChild() throws InterruptedException {
        if (child != null) {
            child.destroyForcibly();
            child.waitFor();
        }
    }

    @Test
    @DisplayName("96 MiB over a 1 MiB cap on a 64 MiB heap: one effect in 3 calls, the first caller gets every byte, replays the marked empty body")
    void responseFarOverTheCapAndTheHeap() throws Exception {
        URI base = startServer();

        Received first = post(base, "huge-1");
        Received second = post(base, "huge-1");
        Received third = post(base, "huge-1");

        assertThat(first.status).as("first call (server log:\n%s)", tail()).isEqualTo(201);
        assertThat(first.length).as("the caller that ran it gets every byte").isEqualTo(BODY_BYTES);
        assertThat(first.patternHeld).as("the bytes are the handler's, in order").isTrue();
        assertThat(first.headers.firstValue("Idempotent-Body-Omitted")).isEmpty();
        for (Received replay : List.of(second, third)) {
            assertThat(replay.status).isEqualTo(201);
            assertThat(replay.length).isZero();
            assertThat(replay.headers.firstValue("Idempotent-Body-Omitted")).hasValue("true");
            assertThat(replay.headers.firstValue("Idempotent-Replayed")).hasValue("true");
        }
        HttpResponse<String> runs = client.send(HttpRequest.newBuilder(base.resolve("/app/runs")).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.US_ASCII));
        assertThat(runs.body()).as("the handler's runs").isEqualTo("1");
    }

    private URI startServer() throws Exception {
        Path portFile = dir.resolve("port");
        log = dir.resolve("server.log");
        child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), HEAP,
                "-cp", System.getProperty("java.class.path"), LargeResponseServer.class.getName(),
                backend.name(), Long.toString(BODY_BYTES), portFile.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (!Files.exists(portFile)) {
            assertThat(child.isAlive()).as("the server exited before listening:\n%s", tail()).isTrue();
            assertThat(Instant.now()).as("the server did not listen within 90 s:\n%s", tail()).isBefore(deadline);
            Thread.sleep(20);
        }
        return URI.create("http://127.0.0.1:" + Files.readString(portFile).trim());
    }

    private Received post(URI base, String key) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(base.resolve("/app" + FilterTestSupport.PAYMENTS))
                .timeout(Duration.ofSeconds(120))
                .header(IdempotencyFilter.DEFAULT_HEADER_NAME, key)
                .header("Content-Type", FilterTestSupport.JSON)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofInputStream());
        long length = 0;
        boolean patternHeld = true;
        byte[] buffer = new byte[64 * 1024];
        try (InputStream body = response.body()) {
            for (int read; (read = body.read(buffer)) >= 0; ) {
                for (int i = 0; i < read && patternHeld; i++) {
                    patternHeld = buffer[i] == LargeResponseServer.byteAt(length + i);
                }
                length += read;
            }
        }
        return new Received(response.statusCode(), response.headers(), length, patternHeld);
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private record Received(int status, HttpHeaders headers, long length, boolean patternHeld) {
    }
}
