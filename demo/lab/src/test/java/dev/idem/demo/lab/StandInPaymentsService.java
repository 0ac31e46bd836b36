package dev.idem.demo.lab;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.InvalidKeyException;
import dev.idem.LeaseLostException;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.Sqlite;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.NonDurableMemoryStore;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * TEST CODE ONLY: a small payments service that honours {@link PaymentsServiceContract}, so the lab's
 * machinery is tested on its own, in a JVM that starts in well under a second. The real service
 * (demo/payments-service, Spring Boot) runs the same lab in that module's PaymentsLabIT. It is
 * deliberately plain: idem-core's engine with phases over a SQLite or PostgreSQL store ({@code correct}), the same with
 * a non-durable in-memory store ({@code memory-store}), or a charge made before any key is stored
 * ({@code key-after-effect}). The broken variants charge the gateway with a fresh key per execution,
 * as a service trusting only its own store would.
 */
public final class StandInPaymentsService {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Scope SCOPE = Scope.of("lab", "POST /payments");

    private final String variant;
    private final IdempotencyStore store;
    private final Idem idem;
    private final URI charges;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** The service's own payment rows (the fleet's checker reads them), for the JDBC variants; null for the memory store. */
    private final DataSource payments;

    private StandInPaymentsService(String variant, IdempotencyStore store, DataSource payments, String gatewayUrl) {
        this.variant = variant;
        this.store = store;
        this.payments = payments;
        // A short lease: after a SIGKILL the key is taken over within seconds.
        this.idem = Idem.builder().store(store).lease(Duration.ofSeconds(2)).build();
        this.charges = URI.create(gatewayUrl + "/charges");
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> flags = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, got " + arg);
            }
            flags.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        String variant = flags.getOrDefault("variant", "correct");
        IdempotencyStore store;
        HikariDataSource pool = null;
        if (variant.equals("memory-store")) {
            store = new NonDurableMemoryStore();
        } else {
            Path dataDir = Path.of(flags.get("data-dir"));
            Files.createDirectories(dataDir);
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(flags.containsKey("db") ? flags.get("db") : Sqlite.url(dataDir.resolve("payments.db")));
            config.setMaximumPoolSize(8);
            pool = new HikariDataSource(config);
            JdbcIdempotencyStore jdbc = JdbcIdempotencyStore.builder(pool).tableName("standin_idem_record").build();
            jdbc.migrate();
            createPaymentTable(pool);
            store = jdbc;
        }
        StandInPaymentsService service = new StandInPaymentsService(variant, store, pool, flags.get("gateway.url"));
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(flags.get("server.port"))), 128);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext(PaymentsServiceContract.PAYMENTS_PATH, service::payments);
        server.createContext(PaymentsServiceContract.READINESS_PATH, exchange -> send(exchange, 200, Map.of(), "{\"status\":\"UP\"}"));
        server.start();
        System.out.println("stand-in payments service (" + variant + ") on port " + server.getAddress().getPort());
    }

    private void payments(HttpExchange exchange) throws IOException {
        try {
            if (!exchange.getRequestMethod().equals("POST")) {
                problem(exchange, 405, "use POST");
                return;
            }
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            if (!body.path("amount").isIntegralNumber() || body.path("amount").asLong() <= 0 || !body.path("currency").isString()
                    || !body.path("card").isString()) {
                problem(exchange, 400, "amount (positive integer), currency and card are required");
                return;
            }
            String header = exchange.getRequestHeaders().getFirst(PaymentsServiceContract.KEY_HEADER);
            if (header == null) {
                String chargeId = charge(UUID.randomUUID().toString(), body);
                send(exchange, 201, Map.of(), paid("pay_" + UUID.randomUUID(), chargeId, body));
                return;
            }
            IdempotencyKey key = IdempotencyKey.parse(header);
            Fingerprint fingerprint = Fingerprint.builder().part("amount", body.get("amount").asString())
                    .part("currency", body.get("currency").asString()).part("card", body.get("card").asString()).build();
            answer(exchange, execute(key, fingerprint, body));
        } catch (InvalidKeyException e) {
            problem(exchange, 400, e.getMessage());
        } catch (LeaseLostException e) {
            // Another owner took the key over; its result stands and a retry gets it.
            exchange.getResponseHeaders().add("Retry-After", "1");
            problem(exchange, 409, "the key was taken over by another request");
        } catch (StoreException | DatabaseFailure e) {
            // The database is out of reach (a failover): nothing was stored, so a retry is safe.
            exchange.getResponseHeaders().add("Retry-After", "1");
            problem(exchange, 503, "the database is unavailable");
        } catch (RuntimeException e) {
            problem(exchange, 502, "payment failed: " + e.getClass().getSimpleName());
        } finally {
            exchange.close();
        }
    }

    private Outcome execute(IdempotencyKey key, Fingerprint fingerprint, JsonNode body) {
        switch (variant) {
            case "key-after-effect" -> {
                Optional<IdempotencyRecord> record = store.find(new RecordKey(SCOPE, key));
                if (record.isPresent() && record.get().state() == RecordState.COMPLETED && record.get().fingerprint().equals(fingerprint)) {
                    return new Outcome.Replayed(record.get().response().orElseThrow());
                }
                String chargeId = charge(UUID.randomUUID().toString(), body);
                return idem.execute(SCOPE, key, fingerprint, run -> response(paid("pay_" + UUID.randomUUID(), chargeId, body)));
            }
            case "memory-store" -> {
                return idem.execute(SCOPE, key, fingerprint, run -> {
                    String id = run.phase("create", k -> "pay_" + UUID.randomUUID());
                    String chargeId = run.phase("charge", ignoredDownstreamKey -> charge(UUID.randomUUID().toString(), body));
                    return response(paid(id, chargeId, body));
                });
            }
            default -> {
                return idem.execute(SCOPE, key, fingerprint, run -> {
                    String id = run.phase("create", requestKey -> createPending(requestKey, body.get("card").asString()));
                    String chargeId = run.phase("charge", downstreamKey -> charge(downstreamKey, body));
                    run.phase("mark-paid", ignored -> markPaid(id, chargeId));
                    return response(paid(id, chargeId, body));
                });
            }
        }
    }

    /** A failed statement of the service's own payment table. */
    private static final class DatabaseFailure extends RuntimeException {
        DatabaseFailure(SQLException cause) {
            super("payment table: " + cause.getMessage(), cause);
        }
    }

    private static void createPaymentTable(DataSource pool) throws SQLException {
        String ddl = "CREATE TABLE IF NOT EXISTS payment (id VARCHAR(64) PRIMARY KEY, request_key VARCHAR(200) NOT NULL UNIQUE,"
                + " card VARCHAR(200) NOT NULL, status VARCHAR(16) NOT NULL, charge_id VARCHAR(200))";
        for (int attempt = 1; ; attempt++) {
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute(ddl);
                return;
            } catch (SQLException e) {
                // Instances starting at once: PostgreSQL's IF NOT EXISTS is not atomic, the loser fails once the winner commits.
                if (attempt >= 3) {
                    throw e;
                }
            }
        }
    }

    /** The pending payment row of this request (a re-run finds the same row); its id. */
    private String createPending(String requestKey, String card) {
        if (payments == null) {
            return "pay_" + UUID.randomUUID();
        }
        try (Connection c = payments.getConnection()) {
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO payment (id, request_key, card, status) VALUES (?, ?, ?, 'pending')"
                    + " ON CONFLICT (request_key) DO NOTHING")) {
                insert.setString(1, "pay_" + UUID.randomUUID());
                insert.setString(2, requestKey);
                insert.setString(3, card);
                insert.executeUpdate();
            }
            try (PreparedStatement select = c.prepareStatement("SELECT id FROM payment WHERE request_key = ?")) {
                select.setString(1, requestKey);
                try (ResultSet rs = select.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        } catch (SQLException e) {
            throw new DatabaseFailure(e);
        }
    }

    private String markPaid(String id, String chargeId) {
        if (payments == null) {
            return id;
        }
        try (Connection c = payments.getConnection();
             PreparedStatement update = c.prepareStatement("UPDATE payment SET status = 'paid', charge_id = ? WHERE id = ?")) {
            update.setString(1, chargeId);
            update.setString(2, id);
            update.executeUpdate();
            return id;
        } catch (SQLException e) {
            throw new DatabaseFailure(e);
        }
    }

    /** Charges through the gateway, retrying its 5xx and lost answers with the same key. */
    private String charge(String gatewayKey, JsonNode body) {
        ObjectNode charge = JSON.createObjectNode();
        charge.put("amount", body.get("amount").asLong());
        charge.put("currency", body.get("currency").asString());
        charge.put("card", body.get("card").asString());
        HttpRequest request = HttpRequest.newBuilder(charges).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Idempotency-Key", gatewayKey)
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(charge))).build();
        for (int attempt = 1; ; attempt++) {
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 201) {
                    return JSON.readTree(response.body()).get("chargeId").asString();
                }
                if (response.statusCode() < 500 && response.statusCode() != 409 || attempt >= 5) {
                    throw new IllegalStateException("gateway answered " + response.statusCode());
                }
            } catch (IOException e) {
                if (attempt >= 5) {
                    throw new IllegalStateException("gateway unreachable", e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            ChildProcess.sleep(50L * attempt);
        }
    }

    private static String paid(String id, String chargeId, JsonNode body) {
        ObjectNode paid = JSON.createObjectNode();
        paid.put("id", id);
        paid.put("status", "paid");
        paid.put("chargeId", chargeId);
        paid.put("amount", body.get("amount").asLong());
        paid.put("currency", body.get("currency").asString());
        return JSON.writeValueAsString(paid);
    }

    private static StoredResponse response(String json) {
        return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")), json.getBytes(StandardCharsets.UTF_8));
    }

    private static void answer(HttpExchange exchange, Outcome outcome) throws IOException {
        if (outcome instanceof Outcome.Executed executed) {
            send(exchange, executed.response().status(), Map.of(), new String(executed.response().body(), StandardCharsets.UTF_8));
        } else if (outcome instanceof Outcome.Replayed replayed) {
            send(exchange, replayed.response().status(), Map.of(PaymentsServiceContract.REPLAYED_HEADER, "true"),
                    new String(replayed.response().body(), StandardCharsets.UTF_8));
        } else if (outcome instanceof Outcome.InProgress) {
            exchange.getResponseHeaders().add("Retry-After", "1");
            problem(exchange, 409, "a request with this key is in progress");
        } else {
            problem(exchange, 422, "the key was used for another payment");
        }
    }

    private static void problem(HttpExchange exchange, int status, String detail) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
        ObjectNode problem = JSON.createObjectNode().put("status", status).put("detail", detail);
        send(exchange, status, Map.of(), JSON.writeValueAsString(problem));
    }

    private static void send(HttpExchange exchange, int status, Map<String, String> headers, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        headers.forEach(exchange.getResponseHeaders()::add);
        if (!exchange.getResponseHeaders().containsKey("Content-Type")) {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
