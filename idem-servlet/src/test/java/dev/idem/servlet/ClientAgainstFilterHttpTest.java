package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** idem's client against idem's filter on Jetty and a real store: its retries, end to end. */
@ParameterizedClass
@EnumSource(Backend.class)
class ClientAgainstFilterHttpTest extends FilterTestSupport {

    ClientAgainstFilterHttpTest(Backend backend) {
        super(backend);
    }

    @Test
    @DisplayName("handler 4 s, attempt timeout 1 s, default deadline: the caller ends with the result, the handler ran once")
    void keyInUseIsWaitedForWithinTheDeadline() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, (request, response) -> {
            int run = runs.incrementAndGet();
            request.getInputStream().readAllBytes();
            Thread.sleep(4000);
            respondCreated(response, run, "");
        }));
        IdempotentHttpClient client = IdempotentHttpClient.builder(FilterTestSupport.client).attemptTimeout(Duration.ofSeconds(1)).build();

        IdempotentResponse<String> response = client.send(HttpRequest.newBuilder(server.uri(PAYMENTS))
                .header("Content-Type", JSON).POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).as("not the 409 of a request still completing").isEqualTo(201);
        assertThat(response.replayed()).as("the first attempt timed out; a later one got the stored result").isTrue();
        assertThat(response.body()).contains("\"run\":1");
        assertThat(response.attempts()).isGreaterThan(2);
        assertThat(runs).hasValue(1);
    }

    @Test
    @DisplayName("a one-shot body publisher: the retry after a lost first attempt carries the same bytes; the handler ran once with them")
    void oneShotBodyIsResentIdentically() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        List<String> bodies = new CopyOnWriteArrayList<>();
        AtomicBoolean gatewayFailed = new AtomicBoolean();
        // In front of the filter, as a gateway would: the first request is read and answered 503, never forwarded.
        Filter flakyGateway = (request, response, chain) -> {
            if (gatewayFailed.compareAndSet(false, true)) {
                request.getInputStream().readAllBytes();
                ((HttpServletResponse) response).sendError(503);
                return;
            }
            chain.doFilter(request, response);
        };
        TestServer server = serve(List.of(flakyGateway), IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS,
                (HttpServletRequest request, HttpServletResponse response) -> {
                    String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    bodies.add(body);
                    respondCreated(response, runs.incrementAndGet(), body);
                }));
        String json = "{\"amount\":100,\"currency\":\"EUR\"}";
        InputStream once = new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8));
        IdempotentHttpClient client = IdempotentHttpClient.builder(FilterTestSupport.client).build();

        IdempotentResponse<String> response = client.send(HttpRequest.newBuilder(server.uri(PAYMENTS))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> once)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(gatewayFailed).isTrue();
        assertThat(response.attempts()).isEqualTo(2);
        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(bodies).as("the handler ran once, with the request's body").containsExactly(json);
        assertThat(runs).hasValue(1);
    }
}
