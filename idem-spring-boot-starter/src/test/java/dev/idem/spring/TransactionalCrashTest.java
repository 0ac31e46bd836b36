package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.Sqlite;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * A process killed (SIGKILL) in the middle of an {@code @Idempotent(transactional = true)} handler,
 * after its row and the claim were written in the open transaction: the database rolls that
 * transaction back, so neither the row nor the key survives, and a retry to a new process runs the
 * handler once. The application runs as a child JVM; its effects are appended to a file.
 */
class TransactionalCrashTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aProcessKilledMidHandlerLeavesNoRowAndNoKeyAndTheRetryRunsOnce(Backend backend) throws Exception {
        TestDatabase pg = backend == Backend.POSTGRESQL ? backend.open() : null;
        String jdbcUrl = pg != null ? Backend.jdbcUrl(pg) : Sqlite.url(dir.resolve("orders.db"));
        Path effects = dir.resolve("effects.log");
        String key = UUID.randomUUID().toString();
        String item = "crash-" + UUID.randomUUID();
        try {
            try (ChildApp first = ChildApp.start(dir, jdbcUrl, effects)) {
                CompletableFuture<HttpResponse<String>> stuck = CLIENT.sendAsync(
                        request(first.uri("/tx/orders/stuck"), key, item).header("X-Stuck", "true").build(),
                        HttpResponse.BodyHandlers.ofString());
                ConcurrencyTest.awaitTrue("the handler wrote its row and hangs", () -> effectsOf(effects, item + "/inserted") == 1);
                if (pg != null) {
                    assertThat(openTransactions(jdbcUrl)).as("the handler's transaction is open").isGreaterThanOrEqualTo(1);
                }

                first.kill();
                assertThat(stuck).failsWithin(Duration.ofSeconds(30)); // the connection died with the process
            }
            if (pg != null) {
                // The server ends the dead client's session and rolls its transaction back.
                ConcurrencyTest.awaitTrue("the dead session's transaction ended", () -> openTransactions(jdbcUrl) == 0);
            }
            assertThat(count(jdbcUrl, "SELECT count(*) FROM tx_order WHERE item = ?", item)).as("no row").isZero();
            assertThat(count(jdbcUrl, "SELECT count(*) FROM idem_record WHERE idem_key = ?", key)).as("no key").isZero();

            try (ChildApp second = ChildApp.start(dir, jdbcUrl, effects)) {
                HttpResponse<String> retry = CLIENT.send(request(second.uri("/tx/orders/stuck"), key, item).build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                HttpResponse<String> replay = CLIENT.send(request(second.uri("/tx/orders/stuck"), key, item).build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));

                assertThat(retry.statusCode()).isEqualTo(201);
                assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("ran again, not replayed").isEmpty();
                assertThat(JsonMapper.shared().readTree(retry.body()).get("pid").asLong()).isEqualTo(second.pid());
                assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
                assertThat(replay.body()).isEqualTo(retry.body());
            }
            assertThat(effectsOf(effects, item)).as("the killed run and the retry").isEqualTo(2);
            assertThat(count(jdbcUrl, "SELECT count(*) FROM tx_order WHERE item = ?", item)).as("one row, the retry's").isEqualTo(1);
            assertThat(count(jdbcUrl, "SELECT count(*) FROM idem_record WHERE idem_key = ?", key)).isEqualTo(1);
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
    }

    private static HttpRequest.Builder request(URI uri, String key, String item) {
        return HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"" + item + "\"}", StandardCharsets.UTF_8));
    }

    private static long count(String jdbcUrl, String sql, String value) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** PostgreSQL sessions of this database inside a transaction that waits for its client. */
    private static long openTransactions(String jdbcUrl) {
        try {
            return count(jdbcUrl, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND state LIKE ?", "idle in transaction%");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many runs of exactly {@code effect} the effects file records, across processes. */
    private static long effectsOf(Path effects, String effect) {
        try {
            if (!Files.exists(effects)) {
                return 0;
            }
            List<String> lines = Files.readAllLines(effects, StandardCharsets.UTF_8);
            return lines.stream().filter(line -> line.startsWith(effect + " ")).count();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
