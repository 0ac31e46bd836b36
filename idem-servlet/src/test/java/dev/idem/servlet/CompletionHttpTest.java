package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Completer;
import dev.idem.Execution;
import dev.idem.Idem;
import dev.idem.OperationRegistry;
import dev.idem.http.StoredRequest;
import dev.idem.spi.RecordSummary;
import dev.idem.testing.NonDurableMemoryStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A route with completion on a real Jetty: the handler checkpoints its charge and dies; a completer
 * runs the stored request through the servlet inside the application, and the late retry replays it.
 */
class CompletionHttpTest {
    private static final String OPERATION = "http:POST:/orders";
    private static final String BODY = "{\"amount\":1200,\"note\":\"Zürich\"}";
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final MutableClock clock = new MutableClock();
    private final NonDurableMemoryStore store = new NonDurableMemoryStore(clock);
    private final Idem idem = Idem.builder().store(store).lease(Duration.ofSeconds(30)).renewLeases(false).build();
    private final AtomicInteger charges = new AtomicInteger();
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    private final Orders orders = new Orders();
    private final OperationRegistry operations = OperationRegistry.builder()
            .register(OPERATION, StoredRequest.CODEC, ServletCompletion.of(orders, idem.maxResponseBytes())).build();
    private Server server;
    private URI base;

    /** Charges in a phase, then dies when asked to (by a header the stored request does not keep), else answers 201. */
    private final class Orders extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws java.io.IOException {
            String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(request.getMethod() + " " + request.getRequestURI() + " ? " + request.getQueryString() + " note=" + request.getParameter("note")
                    + " path=" + request.getServletPath() + " ct=" + request.getContentType() + " accept=" + request.getHeader("Accept")
                    + " len=" + request.getContentLength() + " enc=" + request.getCharacterEncoding() + " type=" + request.getDispatcherType()
                    + " body=" + body);
            Execution run = IdempotencyFilter.execution(request).orElseThrow();
            String charge;
            try {
                charge = run.phase("charge", k -> "ch_" + charges.incrementAndGet());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            if (request.getHeader("X-Crash") != null) {
                throw new IllegalStateException("the process dies after the charge");
            }
            response.setStatus(201);
            response.setContentType("application/json");
            response.setHeader("Location", "/app/orders/" + charge);
            response.getOutputStream().write(("{\"charge\":\"" + charge + "\"}").getBytes(StandardCharsets.UTF_8));
        }
    }

    private void start(RoutePolicy policy) throws Exception {
        IdempotencyFilter filter = IdempotencyFilter.builder(idem).routePolicyResolver(request -> policy).build();
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        ServletHolder holder = new ServletHolder(orders);
        holder.setInitOrder(1);
        context.addServlet(holder, "/");
        server.setHandler(context);
        server.start();
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app");
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private HttpResponse<String> post(String key, boolean crash) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/orders/a%20b?note=caf%C3%A9&n=1&n=2"))
                .header("Content-Type", "application/json; charset=UTF-8").header("Accept", "application/json")
                .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString(BODY, StandardCharsets.UTF_8));
        if (crash) {
            request.header("X-Crash", "yes");
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private Completer completer() {
        return Completer.builder(idem, operations).delay(Duration.ofSeconds(5)).maxAttempts(3).clock(clock).build();
    }

    @Test
    @DisplayName("an abandoned completable request is finished by the completer inside the app, charged once, and the late retry replays its 201")
    void completerFinishesTheRoute() throws Exception {
        start(RoutePolicy.required().withCompletion(operations, OPERATION));

        assertThat(post("order-key-1", true).statusCode()).isEqualTo(500);
        RecordSummary abandoned = store.administration().orElseThrow().expiredLeases(10).get(0);
        assertThat(abandoned.phasesDone()).containsExactly("idem:input", "charge");

        clock.advance(Duration.ofMinutes(1));
        try (Completer completer = completer()) {
            assertThat(completer.completeOnce()).isEqualTo(1);
        }

        assertThat(charges).hasValue(1);
        assertThat(seen).hasSize(2);
        assertThat(seen.get(1)).isEqualTo(seen.get(0));
        assertThat(seen.get(0)).isEqualTo("POST /app/orders/a%20b ? note=caf%C3%A9&n=1&n=2 note=café path=/orders/a b"
                + " ct=application/json; charset=utf-8 accept=application/json len=" + BODY.getBytes(StandardCharsets.UTF_8).length
                + " enc=UTF-8 type=REQUEST body=" + BODY);
        HttpResponse<String> late = post("order-key-1", false);
        assertThat(late.statusCode()).isEqualTo(201);
        assertThat(late.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(late.headers().firstValue("Location")).hasValue("/app/orders/ch_1");
        assertThat(late.body()).isEqualTo("{\"charge\":\"ch_1\"}");
        assertThat(seen).hasSize(2);
    }

    @Test
    @DisplayName("a live retry that takes the record over runs its own request again, after the stored charge")
    void liveRetryRunsItsOwnRequest() throws Exception {
        start(RoutePolicy.required().withCompletion(operations, OPERATION));
        assertThat(post("order-key-2", true).statusCode()).isEqualTo(500);

        HttpResponse<String> retry = post("order-key-2", false);

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.body()).isEqualTo("{\"charge\":\"ch_1\"}");
        assertThat(charges).hasValue(1);
    }

    @Test
    @DisplayName("a route without completion leaves no stored request: its abandoned record is left to its client")
    void routeWithoutCompletionIsLeftAlone() throws Exception {
        start(RoutePolicy.required());
        assertThat(post("order-key-3", true).statusCode()).isEqualTo(500);
        clock.advance(Duration.ofMinutes(1));
        try (Completer completer = completer()) {
            assertThat(completer.completeOnce()).isZero();
        }
        assertThat(seen).hasSize(1);
        assertThat(store.administration().orElseThrow().expiredLeases(10).get(0).phasesDone()).containsExactly("charge");
    }

    @Test
    @DisplayName("a request a completable route cannot store (more kept header values than a stored request holds) is a 400 problem; nothing runs")
    void anUnstorableRequestIsRefusedBeforeTheClaim() throws Exception {
        start(RoutePolicy.required().withCompletion(operations, OPERATION));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/orders/x")).header("Content-Type", "application/json")
                .header("Idempotency-Key", "order-key-unstorable").POST(HttpRequest.BodyPublishers.ofString(BODY, StandardCharsets.UTF_8));
        for (int i = 0; i <= StoredRequest.MAX_HEADERS; i++) {
            request.header("Accept", "application/x-" + i);
        }

        HttpResponse<String> answer = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(answer.body()).contains("urn:idem:problem:request-not-storable", "headers").doesNotContain("application/x-");
        assertThat(seen).isEmpty();
        // Nothing was claimed: the same key with a storable request runs as a first request.
        HttpResponse<String> storable = post("order-key-unstorable", false);
        assertThat(storable.statusCode()).isEqualTo(201);
        assertThat(storable.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(seen).hasSize(1);
    }

    @Test
    @DisplayName("withCompletion refuses an unregistered name, a runner of its own and a bad header name")
    void withCompletionValidates() {
        assertThatThrownBy(() -> RoutePolicy.required().withCompletion(operations, "http:POST:/refunds"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no operation named 'http:POST:/refunds'")
                .hasMessageContaining(OPERATION);
        RequestRunner runner = RequestRunner.of(idem);
        assertThatThrownBy(() -> RoutePolicy.required().withRunner(runner).withCompletion(operations, OPERATION))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("RequestRunner");
        assertThatThrownBy(() -> RoutePolicy.required().withCompletion(operations, OPERATION).withRunner(runner))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("takes no RequestRunner");
        assertThatThrownBy(() -> RoutePolicy.notCovered().withCompletion(operations, OPERATION)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RoutePolicy.required().withCompletion(operations, OPERATION, List.of("Bad Header")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keptHeaders");
        assertThat(RoutePolicy.required().withCompletion(operations, OPERATION).completion().orElseThrow().keptHeaders())
                .isEqualTo(StoredRequest.KEPT_HEADERS);
    }

    @Test
    @DisplayName("a servlet its container has not initialised is refused, saying to load it on startup")
    void anUninitialisedServletIsRefused() {
        ServletCompletion completion = ServletCompletion.of(new HttpServlet() {
            private static final long serialVersionUID = 1L;
        }, idem.maxResponseBytes());
        StoredRequest stored = StoredRequest.of("POST", "/orders", List.of(), new byte[0]);
        assertThatThrownBy(() -> completion.run(null, stored)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not initialised").hasMessageContaining("load-on-startup");
    }

    /** A clock the test moves. */
    static final class MutableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
