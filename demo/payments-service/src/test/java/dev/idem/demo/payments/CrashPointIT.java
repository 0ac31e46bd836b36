package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import dev.idem.jdbc.Sqlite;
import dev.idem.testing.RealServices;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service is halted at each step boundary of a payment ({@code --crash-at}: as abrupt as SIGKILL)
 * while a retrying client waits for it; restarted on the same data, it finishes the payment. Every
 * time the gateway's ledger ends with exactly one charge, the database with one payment row, and every
 * 201 the client sees carries the same payment. On SQLite (whose store coalesces commits by default)
 * at every point, and on PostgreSQL with coalescing forced on at the points around the store's
 * coalesced writes (the claim, the completion) and one between them.
 */
class CrashPointIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    static Path shared;
    private static GatewayForTests gateway;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void startGateway() {
        gateway = GatewayForTests.start(shared);
    }

    @AfterAll
    static void stopGateway() {
        gateway.close();
    }

    @ParameterizedTest(name = "--crash-at={0}")
    @EnumSource(CrashPoint.class)
    @Timeout(120)
    void aCrashAtEveryStepEndsInExactlyOneChargeAndOnePayment(CrashPoint point) throws Exception {
        crashAndRecover(point, List.of(), Sqlite.url(dataDir.resolve("payments.db")));
    }

    @ParameterizedTest(name = "PostgreSQL, --coalesce=on, --crash-at={0}")
    @EnumSource(value = CrashPoint.class, names = {"AFTER_CLAIM", "AFTER_GATEWAY_CALL", "AFTER_COMPLETION"})
    @Timeout(120)
    void onPostgresWithCoalescedCommitsACrashEndsInExactlyOneChargeAndOnePayment(CrashPoint point) throws Exception {
        String server = RealServices.postgresUrl();
        String schema = "demo_crash_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        String db = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        try {
            crashAndRecover(point, List.of("--db=" + db, "--coalesce=on"), db);
        } finally {
            try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    /**
     * Halts the service at {@code point} while a retrying client pays, restarts it on the same data,
     * and checks the payment ended once, in the gateway's ledger and in the database at {@code jdbcUrl}.
     */
    private void crashAndRecover(CrashPoint point, List<String> flags, String jdbcUrl) throws Exception {
        List<String> args = new java.util.ArrayList<>(flags);
        args.add("--crash-at=" + point.flag());
        String[] serviceFlags = args.toArray(String[]::new);
        int port = ServiceProcess.freePort();
        Path log = dataDir.resolve("service.log");
        String card = "crash-" + point.flag() + "-" + UUID.randomUUID().toString().substring(0, 8);
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\":4200,\"currency\":\"EUR\",\"card\":\"" + card + "\"}";
        HttpRequest pay = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        IdempotentHttpClient client = IdempotentHttpClient.builder(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(1)).build())
                .maxAttempts(100).deadline(Duration.ofSeconds(90)).backoff(Duration.ofMillis(100), Duration.ofMillis(500)).build();

        CompletableFuture<IdempotentResponse<String>> paid;
        try (ServiceProcess first = ServiceProcess.start(port, gateway.baseUrl(), dataDir, log, serviceFlags)) {
            paid = client.sendAsync(pay, HttpResponse.BodyHandlers.ofString(), key);
            int exit = first.awaitExit(Duration.ofSeconds(30));
            assertThat(exit).as("the service halted at %s (log:%n%s)", point.flag(), first.tail()).isEqualTo(CrashPoints.HALT_STATUS);
        }
        assertThat(paid).as("no answer while the service is down").isNotDone();

        try (ServiceProcess second = ServiceProcess.start(port, gateway.baseUrl(), dataDir, log, serviceFlags)) {
            IdempotentResponse<String> answer = paid.get(90, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).as("the retries' final answer (log:%n%s)", second.tail()).isEqualTo(201);
            assertThat(answer.attempts()).as("the first attempt died with the process").isGreaterThanOrEqualTo(2);
            JsonNode payment = JSON.readTree(answer.body());
            assertThat(payment.get("status").asString()).isEqualTo("paid");

            // Exactly one charge, under the derived downstream key, and it is the one the answer names.
            var charges = gateway.chargesOf(card);
            assertThat(charges).as("charges of this payment at the gateway").hasSize(1);
            assertThat(charges.get(0).chargeId()).isEqualTo(payment.get("chargeId").asString());
            assertThat(charges.get(0).key()).startsWith("charge-");
            assertThat(paymentRows(jdbcUrl, card)).as("payment rows for this card").isEqualTo(1);

            // Every later reply for the key is the same payment, replayed.
            HttpResponse<String> again = HttpClient.newHttpClient().send(HttpRequest.newBuilder(pay.uri())
                    .header("Content-Type", "application/json").header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(again.statusCode()).isEqualTo(201);
            assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(again.body()).isEqualTo(answer.body());

            HttpResponse<String> read = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(second.baseUrl() + "/payments/" + payment.get("id").asString())).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(read.body())).isEqualTo(payment);
            assertThat(gateway.chargesOf(card)).as("still one charge after the replay").hasSize(1);

            HttpResponse<String> counters = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(second.baseUrl() + "/internal/counters")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(JSON.readTree(counters.body()).get("coalescesCommits").asLong()).as("the store coalesced commits").isEqualTo(1);
        }
    }

    private static int paymentRows(String jdbcUrl, String card) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl);
             PreparedStatement st = c.prepareStatement("SELECT count(*) FROM payment WHERE card = ?")) {
            st.setString(1, card);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
