package dev.idem.demo.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyTest {
    private CountingServer server;
    private final List<FaultProxy> proxies = new ArrayList<>();

    @BeforeEach
    void startServer() throws IOException {
        server = new CountingServer();
    }

    @AfterEach
    void stopAll() {
        proxies.forEach(FaultProxy::close);
        server.close();
    }

    private FaultProxy proxy(FaultProxy.Builder builder) throws IOException {
        FaultProxy proxy = builder.build().start();
        proxies.add(proxy);
        return proxy;
    }

    private FaultProxy.Builder toServer() {
        return FaultProxy.builder("127.0.0.1", server.port());
    }

    @Test
    void passesRequestsAndResponsesThroughUnchangedOnKeepAliveConnections() throws Exception {
        FaultProxy proxy = proxy(toServer());
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        for (int i = 1; i <= 5; i++) {
            HttpResponse<String> echo = client.send(post(proxy, "/echo", "payload-" + i), HttpResponse.BodyHandlers.ofString());
            assertThat(echo.statusCode()).isEqualTo(200);
            assertThat(echo.body()).isEqualTo("handled " + server.handled() + ": payload-" + i);
        }
        HttpResponse<String> chunked = client.send(post(proxy, "/chunked", "x"), HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.body()).isEqualTo("part-0;part-1;part-2;");
        HttpResponse<String> empty = client.send(post(proxy, "/empty", "x"), HttpResponse.BodyHandlers.ofString());
        assertThat(empty.statusCode()).isEqualTo(204);

        ProxyStats stats = proxy.stats();
        assertThat(server.handled()).isEqualTo(7);
        assertThat(stats.responsesForwarded()).isEqualTo(7);
        assertThat(stats.responsesDropped()).isZero();
        assertThat(stats.requestsDropped()).isZero();
        assertThat(stats.connections()).as("keep-alive reuses the connection").isLessThan(7);
    }

    @Test
    void aDroppedResponseIsLostAfterTheServerHandledTheRequest() throws Exception {
        FaultProxy proxy = proxy(toServer().dropResponse(1.0));

        assertThatThrownBy(() -> exchange(proxy, "/echo", "pay")).isInstanceOf(IOException.class);

        assertThat(server.handled()).as("the server did the work").isEqualTo(1);
        assertThat(proxy.stats().responsesDropped()).isEqualTo(1);
        assertThat(proxy.stats().responsesForwarded()).isZero();
    }

    @Test
    void aDroppedRequestNeverReachesTheServer() throws Exception {
        FaultProxy proxy = proxy(toServer().dropRequest(1.0));

        assertThatThrownBy(() -> exchange(proxy, "/echo", "pay")).isInstanceOf(IOException.class);

        assertThat(server.handled()).isZero();
        assertThat(proxy.stats().requestsDropped()).isEqualTo(1);
    }

    @Test
    void dropsFollowTheSeed() throws Exception {
        String first = fates(proxy(toServer().dropResponse(0.5).seed(99)));
        String second = fates(proxy(toServer().dropResponse(0.5).seed(99)));

        assertThat(first).contains("ok", "lost");
        assertThat(second).isEqualTo(first);
        assertThat(server.handled()).as("every request reached the server, lost answer or not").isEqualTo(40);
    }

    private String fates(FaultProxy proxy) {
        StringBuilder fates = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            try {
                exchange(proxy, "/echo", "n" + i);
                fates.append("ok ");
            } catch (IOException e) {
                fates.append("lost ");
            }
        }
        assertThat(proxy.stats().responsesDropped() + proxy.stats().responsesForwarded()).isEqualTo(20);
        return fates.toString();
    }

    @Test
    void aDelayHoldsEachResponse() throws Exception {
        FaultProxy proxy = proxy(toServer().delay(Duration.ofMillis(250)));

        long started = System.nanoTime();
        String response = exchange(proxy, "/echo", "slow");

        assertThat(response).startsWith("HTTP/1.1 200");
        assertThat((System.nanoTime() - started) / 1_000_000).isGreaterThanOrEqualTo(250);
    }

    @Test
    void anUnreachableServerClosesTheClientConnection() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        FaultProxy proxy = proxy(FaultProxy.builder("127.0.0.1", closedPort));

        assertThatThrownBy(() -> exchange(proxy, "/echo", "x")).isInstanceOf(IOException.class);
        assertThat(proxy.stats().upstreamFailures()).isEqualTo(1);
    }

    @Test
    void theBuilderRefusesBadSettingsAndNamesThem() {
        assertThatThrownBy(() -> toServer().dropResponse(1.5)).hasMessageContaining("dropResponse").hasMessageContaining("1.5");
        assertThatThrownBy(() -> toServer().dropRequest(-0.1)).hasMessageContaining("dropRequest");
        assertThatThrownBy(() -> toServer().listenPort(70000)).hasMessageContaining("listen port");
        assertThatThrownBy(() -> toServer().delay(Duration.ofMillis(-1))).hasMessageContaining("delay");
        assertThatThrownBy(() -> FaultProxy.builder("127.0.0.1", 0)).hasMessageContaining("upstream port");
    }

    private static HttpRequest post(FaultProxy proxy, String path, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** One request on its own connection ({@code Connection: close}); the whole response, or an IOException if none came. */
    static String exchange(FaultProxy proxy, String path, String body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            socket.setSoTimeout(10_000);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            in.transferTo(response);
            if (response.size() == 0) {
                throw new IOException("connection closed without a response");
            }
            return response.toString(StandardCharsets.UTF_8);
        }
    }
}
