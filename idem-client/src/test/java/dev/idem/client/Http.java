package dev.idem.client;

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
}
