package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.testing.TestDatabase;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What every HTTP test of the filter shares: a fresh database of the backend under test with a
 * migrated {@link JdbcIdempotencyStore}, embedded servers, an HTTP/1.1 {@link HttpClient}, and
 * helpers to read the store and problem bodies.
 */
abstract class FilterTestSupport {
    static final String JSON = "application/json";
    static final String PAYMENTS = "/payments";
    static final String PAYMENTS_SCOPE_OPERATION = "POST /payments";

    final Backend backend;
    final Events events = new Events();
    TestDatabase db;
    JdbcIdempotencyStore store;
    /** One client for the run (java.net.http on Java 17 cannot be closed); HTTP/1.1, no h2c upgrade. */
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final List<TestServer> servers = new ArrayList<>();

    FilterTestSupport(Backend backend) {
        this.backend = backend;
    }

    @BeforeEach
    void openStore() {
        db = backend.open();
        store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (TestServer server : servers) {
            server.close();
        }
        db.close();
    }

    /** An engine on this test's store, reporting to {@link #events}. */
    Idem.Builder idem() {
        return Idem.builder().store(store).listener(events);
    }

    TestServer serve(jakarta.servlet.Filter filter, Map<String, TestServer.Handler> routes) throws Exception {
        return serve(List.of(), filter, routes);
    }

    /** As {@link #serve(jakarta.servlet.Filter, Map)}, with {@code outer} filters in front of {@code filter}. */
    TestServer serve(List<jakarta.servlet.Filter> outer, jakarta.servlet.Filter filter, Map<String, TestServer.Handler> routes) throws Exception {
        TestServer server = TestServer.start(outer, filter, routes);
        servers.add(server);
        return server;
    }

    HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // The server may close a kept-alive connection after an early 4xx (the body was never read)
            // just as the client reuses it; the request then never reached the server. Send it once more,
            // as any client would; tests that count handler runs still see every execution.
            if (!String.valueOf(e.getMessage()).contains("received no bytes")) {
                throw e;
            }
            return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        }
    }

    /** A JSON POST, with the key header when {@code key} is not null. */
    static HttpRequest.Builder post(TestServer server, String path, String key, String json) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(server.uri(path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (key != null) {
            builder.header(IdempotencyFilter.DEFAULT_HEADER_NAME, key);
        }
        return builder;
    }

    /**
     * The handler most tests use: counts its runs, and answers 201 with a JSON body naming the run,
     * a Location, a custom header, a cookie, and the request body it read (through the wrapper).
     */
    static TestServer.Handler created(AtomicInteger runs) {
        return (request, response) -> {
            int run = runs.incrementAndGet();
            String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            respondCreated(response, run, body);
        };
    }

    static void respondCreated(HttpServletResponse response, int run, String requestBody) throws IOException {
        response.setStatus(201);
        response.setContentType(JSON);
        response.setHeader("Location", "/app/payments/" + run);
        response.setHeader("X-Handler-Run", Integer.toString(run));
        response.addCookie(new Cookie("session", "s" + run));
        response.getOutputStream().write(("{\"run\":" + run + ",\"received\":" + quote(requestBody) + "}").getBytes(StandardCharsets.UTF_8));
    }

    static String quote(String text) {
        return JsonMapper.shared().writeValueAsString(text);
    }

    /** The store's row count: what the filter stored, whatever state it is in. */
    int rows() throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + store.tableName())) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Every stored scope, as the database holds it. */
    List<String> storedScopes() throws SQLException {
        List<String> scopes = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT scope FROM " + store.tableName() + " ORDER BY scope")) {
            while (rs.next()) {
                scopes.add(rs.getString(1));
            }
        }
        return scopes;
    }

    Optional<IdempotencyRecord> record(String principal, String operation, String key) {
        return store.find(new RecordKey(Scope.of(principal, operation), IdempotencyKey.of(key)));
    }

    Optional<IdempotencyRecord> paymentRecord(String key) {
        return record(ScopeResolver.ANONYMOUS, PAYMENTS_SCOPE_OPERATION, key);
    }

    static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    /**
     * Asserts an RFC 9457 problem: status, media type, the four members with the URN type, and that
     * the detail carries none of {@code secrets} (key values, body text).
     */
    static JsonNode assertProblem(HttpResponse<String> response, int status, String problem, String... secrets) {
        assertThat(response.statusCode()).as("status of %s", problem).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode json = JsonMapper.shared().readTree(response.body());
        assertThat(json.get("type").asString()).isEqualTo("urn:idem:problem:" + problem);
        assertThat(json.get("status").asInt()).isEqualTo(status);
        assertThat(json.get("title").asString()).isNotBlank();
        String detail = json.get("detail").asString();
        assertThat(detail).isNotBlank();
        for (String secret : secrets) {
            assertThat(response.body()).as("problem body must not reveal a key or the request body").doesNotContain(secret);
        }
        return json;
    }
}
