package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class LabHttpTest {
    private static LabHttp.Response parse(String raw) throws IOException {
        return LabHttp.parse(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void parsesLengthDelimitedAndChunkedBodies() throws Exception {
        LabHttp.Response plain = parse("HTTP/1.1 201 Created\r\nContent-Length: 2\r\nIdempotent-Replayed: true\r\n\r\n{}");
        assertThat(plain.status()).isEqualTo(201);
        assertThat(plain.body()).isEqualTo("{}");
        assertThat(plain.header("idempotent-replayed")).isEqualTo("true");

        LabHttp.Response chunked = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":1}\r\n0\r\n\r\n");
        assertThat(chunked.body()).isEqualTo("{\"a\":1}");

        assertThat(parse("HTTP/1.1 200 OK\r\n\r\nto the end").body()).isEqualTo("to the end");
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort")).hasMessageContaining("truncated");
        assertThatThrownBy(() -> parse("garbage\r\n\r\n")).hasMessageContaining("not an HTTP response");
    }

    @Test
    void tellsARefusedConnectionFromALostResponse() throws Exception {
        int closed;
        try (ServerSocket probe = new ServerSocket(0)) {
            closed = probe.getLocalPort();
        }
        LabHttp.Result refused = LabHttp.exchange(closed, "POST", "/payments", Map.of(), "{}", Duration.ofSeconds(2));
        assertThat(refused.sent()).isFalse();
        assertThat(refused.failure()).isEqualTo("connection refused");

        try (ServerSocket server = new ServerSocket(0)) {
            // A server that reads the request and hangs up without answering.
            CompletableFuture<String> received = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    byte[] buffer = new byte[4096];
                    int n = s.getInputStream().read(buffer);
                    return new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            LabHttp.Result lost = LabHttp.exchange(server.getLocalPort(), "POST", "/payments", Map.of("Idempotency-Key", "k-1"), "{}",
                    Duration.ofSeconds(5));
            assertThat(lost.sent()).isTrue();
            assertThat(lost.response()).isNull();
            assertThat(lost.failure()).isIn("closed without a response", "connection reset");
            assertThat(received.get()).startsWith("POST /payments HTTP/1.1\r\n").contains("Connection: close\r\n", "Idempotency-Key: k-1\r\n");
        }
    }
}
