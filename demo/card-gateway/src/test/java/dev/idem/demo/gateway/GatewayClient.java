package dev.idem.demo.gateway;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A plain HTTP client for a gateway under test. */
final class GatewayClient {
    static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;

    GatewayClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** {@code headers} are name/value pairs; a null key sends no Idempotency-Key. */
    HttpResponse<String> charge(String key, String body, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + "/charges"))
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        boolean typed = false;
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
            typed |= headers[i].equalsIgnoreCase("Content-Type");
        }
        if (!typed) {
            request.header("Content-Type", "application/json");
        }
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode ledger() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/ledger")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /ledger answered " + response.statusCode());
        }
        return JSON.readTree(response.body());
    }

    HttpResponse<String> clearLedger() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/ledger")).DELETE().build(), HttpResponse.BodyHandlers.ofString());
    }

    static String body(long amount, String currency, String card) {
        return "{\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"card\":\"" + card + "\"}";
    }
}
