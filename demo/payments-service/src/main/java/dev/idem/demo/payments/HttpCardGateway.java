package dev.idem.demo.payments;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST <gateway>/charges} over {@code java.net.http}, one attempt per call: a failure fails the
 * payment request (502 or 503), and the client's retry with the same {@code Idempotency-Key} repeats
 * the charge with the same gateway key, so the gateway deduplicates it.
 */
public final class HttpCardGateway implements CardGateway {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final URI charges;
    private final Duration timeout;
    private final HttpClient http;
    private final JsonMapper json;

    public HttpCardGateway(URI baseUrl, Duration timeout, JsonMapper json) {
        this.charges = URI.create(baseUrl + "/charges");
        this.timeout = timeout;
        this.json = json;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT).build();
    }

    @Override
    public String charge(String key, PaymentRequest payment) {
        ObjectNode body = json.createObjectNode();
        body.put("amount", payment.amount());
        body.put("currency", payment.currency());
        body.put("card", payment.card());
        HttpRequest request = HttpRequest.newBuilder(charges)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpConnectTimeoutException e) {
            throw PaymentProblem.gatewayUnavailable("could not be reached within " + CONNECT_TIMEOUT.toSeconds() + " s");
        } catch (HttpTimeoutException e) {
            throw PaymentProblem.gatewayUnavailable("did not answer within " + timeout.toMillis() + " ms");
        } catch (IOException e) {
            throw PaymentProblem.gatewayUnavailable("closed the connection without an answer (" + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw PaymentProblem.gatewayUnavailable("call was interrupted");
        }
        int status = response.statusCode();
        if (status == 409 || status == 429) {
            throw PaymentProblem.gatewayUnavailable("is still processing this charge (" + status + ")");
        }
        if (status != 200 && status != 201) {
            throw PaymentProblem.gatewayFailed(status);
        }
        try {
            JsonNode answer = json.readTree(response.body());
            JsonNode chargeId = answer == null ? null : answer.get("chargeId");
            if (chargeId == null || !chargeId.isString() || chargeId.stringValue().isEmpty()) {
                throw PaymentProblem.gatewayFailed(status);
            }
            return chargeId.stringValue();
        } catch (JacksonException e) {
            throw PaymentProblem.gatewayFailed(status);
        }
    }
}
