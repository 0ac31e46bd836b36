package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What makes two requests "the same" under one key: canonical JSON, sorted query parameters, media
 * type without parameters; and what the handler sees of the buffered body.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class FingerprintHttpTest extends FilterTestSupport {

    FingerprintHttpTest(Backend backend) {
        super(backend);
    }

    private TestServer paymentsServer(AtomicInteger runs) throws Exception {
        return serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, created(runs)));
    }

    private static HttpRequest request(TestServer server, String method, String pathAndQuery, String key, String contentType, String body) {
        return HttpRequest.newBuilder(server.uri(pathAndQuery))
                .header(IdempotencyFilter.DEFAULT_HEADER_NAME, key)
                .header("Content-Type", contentType)
                .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
    }

    @Test
    void jsonBodiesDifferingOnlyInKeyOrderAndWhitespaceReplay() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);
        String compact = "{\"amount\":100,\"currency\":\"EUR\",\"meta\":{\"b\":1,\"a\":[1,2,{\"y\":true,\"x\":null}]}}";
        String reordered = "{\n  \"meta\" : { \"a\" : [ 1, 2, { \"x\": null, \"y\": true } ], \"b\" : 1 },\n"
                + "  \"currency\" : \"\\u0045UR\",\t\"amount\" : 100\n}\n";

        HttpResponse<String> first = send(post(server, PAYMENTS, "json-1", compact).build());
        HttpResponse<String> second = send(post(server, PAYMENTS, "json-1", reordered).build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).as("same JSON, same fingerprint").isTrue();
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(runs).hasValue(1);
    }

    @Test
    void jsonBodiesWithDifferentValuesAre422() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);
        send(post(server, PAYMENTS, "json-2", "{\"amount\":100,\"items\":[1,2]}").build());

        List<String> others = List.of(
                "{\"amount\":101,\"items\":[1,2]}",      // another value
                "{\"amount\":100,\"items\":[2,1]}",      // array order matters
                "{\"amount\":100.0,\"items\":[1,2]}",    // numbers as written
                "{\"amount\":\"100\",\"items\":[1,2]}",  // another type
                "{\"amount\":100,\"items\":[1,2],\"x\":1}");
        for (String other : others) {
            assertProblem(send(post(server, PAYMENTS, "json-2", other).build()), 422, "key-mismatch", "json-2", "items");
        }
        assertThat(runs).hasValue(1);
    }

    @Test
    void malformedJsonIs400AndNothingRunsOrIsStored() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);
        List<String> malformed = List.of(
                "{\"secret-field\":",
                "{\"secret-field\":1,}",
                "{\"secret-field\":1} trailing",
                "{'secret-field':1}",
                "[1,2",
                "secret-field",
                "{\"secret-field\":NaN}",
                "[".repeat(1000) + "]".repeat(1000));

        for (int i = 0; i < malformed.size(); i++) {
            HttpResponse<String> response = send(post(server, PAYMENTS, "malformed-" + i, malformed.get(i)).build());
            assertProblem(response, 400, "malformed-json", "secret-field", "malformed-" + i, "trailing");
        }
        assertThat(runs).as("the handler never ran").hasValue(0);
        assertThat(rows()).as("nothing was stored").isZero();
        assertThat(paymentRecord("malformed-0")).isEmpty();
    }

    @Test
    void plusJsonMediaTypesAreCanonicalisedToo() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of("/orders/*", created(runs)));

        HttpResponse<String> first = send(request(server, "PATCH", "/orders/7", "patch-1", "application/merge-patch+json", "{\"b\":2,\"a\":1}"));
        HttpResponse<String> second = send(request(server, "PATCH", "/orders/7", "patch-1", "application/merge-patch+json", "{ \"a\": 1, \"b\": 2 }"));
        HttpResponse<String> broken = send(request(server, "PATCH", "/orders/7", "patch-2", "application/merge-patch+json", "{\"a\":"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).as("PATCH is covered and +json is canonical JSON").isTrue();
        assertProblem(broken, 400, "malformed-json");
        assertThat(runs).hasValue(1);
    }

    @Test
    void contentTypeParametersAndCaseDoNotChangeTheFingerprintButTheMediaTypeDoes() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);

        send(request(server, "POST", PAYMENTS, "ct-1", "application/json", "{\"a\":1}"));
        HttpResponse<String> withCharset = send(request(server, "POST", PAYMENTS, "ct-1", "Application/JSON; charset=UTF-8", "{\"a\":1}"));
        HttpResponse<String> otherType = send(request(server, "POST", PAYMENTS, "ct-1", "text/plain", "{\"a\":1}"));

        assertThat(replayed(withCharset)).isTrue();
        assertProblem(otherType, 422, "key-mismatch");
        assertThat(runs).hasValue(1);
    }

    @Test
    void queryParameterOrderDoesNotMatterButTheirValuesAndThePathDo() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of("/orders/*", created(runs)));

        HttpResponse<String> first = send(request(server, "POST", "/orders/1?currency=EUR&amount=5&tag=a&tag=b", "q-1", JSON, "{}"));
        HttpResponse<String> reordered = send(request(server, "POST", "/orders/1?tag=a&amount=5&tag=b&currency=EUR", "q-1", JSON, "{}"));
        HttpResponse<String> encoded = send(request(server, "POST", "/orders/1?amount=%35&currency=EUR&tag=a&tag=b", "q-1", JSON, "{}"));
        HttpResponse<String> otherValue = send(request(server, "POST", "/orders/1?currency=EUR&amount=6&tag=a&tag=b", "q-1", JSON, "{}"));
        HttpResponse<String> listOrder = send(request(server, "POST", "/orders/1?currency=EUR&amount=5&tag=b&tag=a", "q-1", JSON, "{}"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(reordered)).isTrue();
        assertThat(replayed(encoded)).as("percent-encoding does not matter").isTrue();
        assertProblem(otherValue, 422, "key-mismatch");
        assertProblem(listOrder, 422, "key-mismatch");
        assertThat(runs).hasValue(1);
    }

    @Test
    void otherBodiesAreComparedByteForByte() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = paymentsServer(runs);

        send(request(server, "POST", PAYMENTS, "bytes-1", "text/plain", "pay  100"));
        HttpResponse<String> same = send(request(server, "POST", PAYMENTS, "bytes-1", "text/plain", "pay  100"));
        HttpResponse<String> whitespace = send(request(server, "POST", PAYMENTS, "bytes-1", "text/plain", "pay 100"));

        assertThat(replayed(same)).isTrue();
        assertProblem(whitespace, 422, "key-mismatch", "pay");
        assertThat(runs).hasValue(1);
    }

    @Test
    void theHandlerReadsTheBufferedBodyThroughStreamReaderOrFormParameters() throws Exception {
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(
                "/stream", (request, response) -> {
                    response.setStatus(201);
                    response.getOutputStream().write(request.getInputStream().readAllBytes());
                },
                "/reader", (request, response) -> {
                    BufferedReader reader = request.getReader();
                    String text = reader.lines().collect(Collectors.joining("\n"));
                    response.setStatus(201);
                    response.setContentType("text/plain;charset=UTF-8");
                    response.getWriter().write(text + "|" + request.getContentLength());
                },
                "/form", (request, response) -> {
                    response.setStatus(201);
                    response.setContentType("text/plain;charset=UTF-8");
                    response.getWriter().write(request.getParameter("amount") + " " + request.getParameter("currency")
                            + " " + String.join(",", request.getParameterValues("tag")) + " " + request.getParameter("q"));
                }));
        String json = "{\"note\":\"caf\u00e9 \u20ac\"}";

        HttpResponse<String> stream = send(request(server, "POST", "/stream", "read-1", JSON, json));
        HttpResponse<String> reader = send(request(server, "POST", "/reader", "read-2", JSON, json));
        HttpResponse<String> form = send(request(server, "POST", "/form?q=query", "read-3", "application/x-www-form-urlencoded",
                "amount=100&currency=%E2%82%AC&tag=a&tag=b"));

        assertThat(stream.body()).isEqualTo(json);
        assertThat(reader.body()).isEqualTo(json + "|" + json.getBytes(StandardCharsets.UTF_8).length);
        assertThat(form.body()).isEqualTo("100 \u20ac a,b query");
        HttpResponse<String> replayedReader = send(request(server, "POST", "/reader", "read-2", JSON, json));
        assertThat(replayed(replayedReader)).isTrue();
        assertThat(replayedReader.body()).as("a writer's text replays in the same charset").isEqualTo(reader.body());
    }
}
