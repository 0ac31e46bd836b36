package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.servlet.ScopeResolver;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordState;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code @Idempotent(transactional = true)} on the shared application, over real HTTP and a real
 * database: the claim, the handler's row (JdbcTemplate in a {@code @Transactional(MANDATORY)}
 * service) and the stored response commit together or not at all. A subclass per backend.
 */
abstract class TransactionalEndpointTest extends AppTest {
    private static final int CALLERS = 32;

    private IdempotencyRecord record(String route, String key) {
        return app.record(ScopeResolver.ANONYMOUS, "POST " + route, key).orElse(null);
    }

    @Test
    void a201CommitsTheRowAndTheStoredResponseTogetherAndNeitherIsVisibleBefore() throws Exception {
        String key = fresh("tx-created");
        String item = fresh("tx-item");
        CompletableFuture<HttpResponse<String>> call;
        int rowsWhileRunning;
        IdempotencyRecord recordWhileRunning;
        app.gate().arm();
        try {
            call = CLIENT.sendAsync(post("/tx/orders", key, itemJson(item)).build(), HttpResponse.BodyHandlers.ofString());
            app.gate().awaitEntered(); // the row and the claim are written, the transaction is open
            rowsWhileRunning = app.orderRows(item);
            recordWhileRunning = record("/tx/orders", key);
        } finally {
            app.gate().release();
        }
        HttpResponse<String> created = call.get(90, TimeUnit.SECONDS);

        assertThat(rowsWhileRunning).as("the row, from another connection, before the commit").isZero();
        assertThat(recordWhileRunning).as("the claim, from another connection, before the commit").isNull();
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(replayed(created)).isFalse();
        JsonNode body = json(created.body());
        assertThat(body.get("inTransaction").asBoolean()).as("the handler ran in a transaction").isTrue();
        assertThat(body.get("rowsSeenInside").asInt()).as("and saw its own uncommitted row").isEqualTo(1);
        assertThat(body.get("execution").asBoolean()).as("no phases in transactional mode").isFalse();
        assertThat(app.orderRows(item)).isEqualTo(1);
        IdempotencyRecord stored = record("/tx/orders", key);
        assertThat(stored.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(stored.response()).get().satisfies(response -> {
            assertThat(response.status()).isEqualTo(201);
            assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo(created.body());
        });
    }

    @Test
    void aReplayAfterCompletionAnswersTheStoredResponseWithoutRunning() throws Exception {
        String key = fresh("tx-replay");
        String item = fresh("tx-replay-item");

        HttpResponse<String> first = send(post("/tx/orders", key, itemJson(item)).build());
        HttpResponse<String> again = send(post("/tx/orders", key, itemJson(item)).build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(replayed(again)).isTrue();
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(app.effects().count(item)).isEqualTo(1);
        assertThat(app.orderRows(item)).isEqualTo(1);
    }

    @Test
    void theSameKeyForAnotherRequestIs422AndWritesNothing() throws Exception {
        String key = fresh("tx-mismatch");
        String item = fresh("tx-mismatch-item");
        String other = fresh("tx-other-item");

        send(post("/tx/orders", key, itemJson(item)).build());
        HttpResponse<String> mismatch = send(post("/tx/orders", key, itemJson(other)).build());

        assertProblem(mismatch, 422, "key-mismatch", key, other);
        assertThat(app.effects().count(other)).isZero();
        assertThat(app.orderRows(other)).isZero();
        assertThat(app.orderRows(item)).isEqualTo(1);
    }

    @Test
    void aHandlerThatThrowsLeavesNeitherItsRowNorTheKeyAndARetryRunsOnce() throws Exception {
        String key = fresh("tx-throws");
        String item = fresh("tx-throws-item");

        HttpResponse<String> failed = send(post("/tx/orders/failing", key, itemJson(item)).build());
        int rowsAfterFailure = app.orderRows(item);
        IdempotencyRecord recordAfterFailure = record("/tx/orders/failing", key);
        HttpResponse<String> retried = send(post("/tx/orders/failing", key, itemJson(item)).build());
        HttpResponse<String> replay = send(post("/tx/orders/failing", key, itemJson(item)).build());

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.body()).doesNotContain(key);
        assertThat(rowsAfterFailure).as("the row written before the exception was rolled back").isZero();
        assertThat(recordAfterFailure).as("so was the claim").isNull();
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(replayed(retried)).isFalse();
        assertThat(replayed(replay)).isTrue();
        assertThat(app.effects().count(item)).as("the failed run and the retry").isEqualTo(2);
        assertThat(app.orderRows(item)).as("only the retry's row").isEqualTo(1);
    }

    @Test
    void aHandlerAnswering503IsNotStoredAndItsRowIsRolledBack() throws Exception {
        String key = fresh("tx-503");
        String item = fresh("tx-503-item");

        HttpResponse<String> unavailable = send(post("/tx/orders/unavailable", key, itemJson(item)).build());
        int rowsAfter503 = app.orderRows(item);
        IdempotencyRecord recordAfter503 = record("/tx/orders/unavailable", key);
        HttpResponse<String> retried = send(post("/tx/orders/unavailable", key, itemJson(item)).build());

        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(replayed(unavailable)).isFalse();
        assertThat(rowsAfter503).as("a 5xx is not stored, so its transaction rolled back").isZero();
        assertThat(recordAfter503).isNull();
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(app.orderRows(item)).isEqualTo(1);
        assertThat(record("/tx/orders/unavailable", key).state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void thirtyTwoConcurrentPostsWithOneKeyWriteOneRowAndAllGetTheSame201() throws Exception {
        String key = fresh("tx-concurrent");
        String item = fresh("tx-concurrent-item");
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        app.gate().arm();
        try {
            for (int i = 0; i < CALLERS; i++) {
                calls.add(CLIENT.sendAsync(post("/tx/orders", key, itemJson(item)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            app.gate().awaitEntered();
            awaitDuplicatesBlocked();
        } finally {
            app.gate().release();
        }
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            responses.add(call.get(90, TimeUnit.SECONDS));
        }

        assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(201);
        assertThat(responses).extracting(HttpResponse::body).as("every caller got the same body").containsOnly(responses.get(0).body());
        assertThat(responses.stream().filter(AppTest::replayed).count()).as("all but the first are replays").isEqualTo(CALLERS - 1);
        assertThat(app.effects().count(item)).as("the handler ran once").isEqualTo(1);
        assertThat(app.orderRows(item)).as("exactly one row").isEqualTo(1);
    }

    /**
     * Lets the duplicates reach the database while the first transaction is open. The assertions hold
     * whatever the overlap; this makes it certain where the database shows it.
     */
    abstract void awaitDuplicatesBlocked() throws Exception;

    /** Sessions of this database waiting on a lock (PostgreSQL). */
    int lockWaiters() throws SQLException {
        try (Connection c = app.db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                     + " AND wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
