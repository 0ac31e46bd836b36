package dev.idem.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.time.Duration;

/** Shared test plumbing: one plain HTTP/1.1 client (no h2c upgrade dance with the raw server) and request shorthands. */
final class Http {
    static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private Http() {
    }

    static HttpRequest post(URI uri, String body) {
        return HttpRequest.newBuilder(uri).POST(BodyPublishers.ofString(body)).build();
    }

    static HttpRequest post(URI uri) {
        return post(uri, "{\"amount\":100,\"currency\":\"EUR\"}");
    }

    static HttpRequest get(URI uri) {
        return HttpRequest.newBuilder(uri).GET().build();
    }

    /** A URI on 127.0.0.1 where nothing listens: a port just bound and released, so connecting is refused. */
    static URI closedPort() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        return URI.create("http://127.0.0.1:" + port + "/payments");
    }
}
