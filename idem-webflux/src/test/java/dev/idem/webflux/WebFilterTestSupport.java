package dev.idem.webflux;

import dev.idem.Idem;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import reactor.blockhound.BlockHound;

/**
 * A real store per test, real servers, the JDK's HTTP client, and BlockHound installed for the whole
 * run: a blocking call on a non-blocking thread (a Netty event loop, Reactor's parallel scheduler)
 * fails the request it is made in ({@link BlockHoundBitesHttpTest} shows it does).
 */
abstract class WebFilterTestSupport {
    /** One client for the run (java.net.http on Java 17 cannot be closed); HTTP/1.1, no h2c upgrade. */
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    static final String JSON = "application/json";

    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void installBlockHound() {
        // Spring reads its codec defaults from a properties file once, in a class initialiser: done here,
        // on the test thread, rather than on the first request's event loop, where BlockHound would report it.
        ServerCodecConfigurer.create();
        BlockHound.install(); // idempotent: later calls do nothing
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    <T extends AutoCloseable> T closing(T resource) {
        opened.add(resource);
        return resource;
    }

    StoreBackend.Opened open(StoreBackend backend) {
        return closing(backend.open());
    }

    WebFluxServer serve(WebFilter filter, Map<String, WebHandler> routes) {
        return closing(new WebFluxServer(filter, routes));
    }

    static IdempotencyWebFilter.Builder filter(Idem idem) {
        return IdempotencyWebFilter.builder(idem);
    }

    static HttpResponse<String> post(URI uri, String key, String contentType, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> post(URI uri, String key, String json) throws Exception {
        return post(uri, key, JSON, json);
    }

    static String newKey() {
        return "k-" + java.util.UUID.randomUUID();
    }
}
