package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.servlet.ScopeResolver;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordState;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Every row of the README's HTTP status table on a real Spring Boot application whose idem is configured by the
 * starter alone, over real HTTP. A subclass per backend.
 */
abstract class HttpSemanticsTest extends AppTest {

    // ---- method and route not covered: pass through ---------------------------------------

    @Test
    void getPassesThroughEvenWithAKey() throws Exception {
        String key = fresh("get");
        String query = fresh("q");
        int rowsBefore = app.rows();

        HttpRequest get = HttpRequest.newBuilder(app.uri("/orders/7?" + query)).header(KEY_HEADER, key).GET().build();
        HttpResponse<String> first = send(get);
        HttpResponse<String> second = send(get);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(replayed(second)).isFalse();
        assertThat(app.effects().count("GET /orders/7 " + query)).as("the handler ran for each GET").isEqualTo(2);
        assertThat(app.rows()).as("nothing stored for a GET").isEqualTo(rowsBefore);
    }

    @Test
    void postToAnEndpointWithoutIdempotentPassesThroughWithoutAKey() throws Exception {
        String item = fresh("note");
        int rowsBefore = app.rows();

        HttpResponse<String> first = send(post("/notes", null, itemJson(item)).build());
        HttpResponse<String> second = send(post("/notes", fresh("ignored-key"), itemJson(item)).build());

        assertThat(first.statusCode()).as("no key needed: the endpoint is not @Idempotent").isEqualTo(200);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(replayed(second)).isFalse();
        assertThat(app.effects().count(item)).as("every request ran the handler").isEqualTo(2);
        assertThat(app.rows()).as("nothing stored").isEqualTo(rowsBefore);
    }

    // ---- the key: missing, malformed, quoted ------------------------------------------------

    @Test
    void missingKeyIs400ProblemJsonAndNothingRuns() throws Exception {
        String item = fresh("missing");
        int rowsBefore = app.rows();

        HttpResponse<String> response = send(post("/orders", null, itemJson(item)).build());

        JsonNode problem = assertProblem(response, 400, "key-missing", item);
        assertThat(problem.get("detail").asString()).contains(KEY_HEADER);
        assertThat(app.effects().count(item)).isZero();
        assertThat(app.rows()).isEqualTo(rowsBefore);
    }

    @Test
    void quotedSfStringKeyIsAcceptedAsTheSameKey() throws Exception {
        String key = fresh("quoted");
        String item = fresh("quoted-item");

        HttpResponse<String> quoted = send(post("/orders", "\"" + key + "\"", itemJson(item)).build());
        HttpResponse<String> bare = send(post("/orders", key, itemJson(item)).build());

        assertThat(quoted.statusCode()).isEqualTo(201);
        assertThat(replayed(quoted)).isFalse();
        assertThat(bare.statusCode()).isEqualTo(201);
        assertThat(replayed(bare)).as("the quotes are not part of the key").isTrue();
        assertThat(bare.body()).isEqualTo(quoted.body());
        assertThat(app.effects().count(item)).isEqualTo(1);
        assertThat(app.record(ScopeResolver.ANONYMOUS, "POST /orders", key)).isPresent();
    }

    // ---- new key, replay, mismatch ------------------------------------------------------------

    @Test
    void newKeyExecutesStoresAndResponds() throws Exception {
        String key = fresh("new");
        String item = fresh("new-item");

        HttpResponse<String> response = send(post("/orders", key, itemJson(item)).build());

        assertThat(response.statusCode()).isEqualTo(201);
        JsonNode body = json(response.body());
        assertThat(body.get("item").asString()).isEqualTo(item);
        assertThat(response.headers().firstValue("Set-Cookie")).as("the first caller gets its cookie")
                .hasValueSatisfying(cookie -> assertThat(cookie).startsWith("session=s"));
        assertThat(response.headers().firstValue("Location")).hasValue("/orders/" + body.get("run").asInt());
        assertThat(replayed(response)).isFalse();
        assertThat(app.effects().count(item)).isEqualTo(1);

        IdempotencyRecord record = app.record(ScopeResolver.ANONYMOUS, "POST /orders", key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.response()).hasValueSatisfying(stored -> {
            assertThat(stored.status()).isEqualTo(201);
            assertThat(new String(stored.body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(response.body());
            assertThat(stored.headers().keySet()).as("Set-Cookie is never stored")
                    .noneMatch(name -> name.equalsIgnoreCase("Set-Cookie"));
        });
    }

    @Test
    void sameKeyAndRequestReplaysTheStoredResponseWithoutItsCookie() throws Exception {
        String key = fresh("replay");
        String item = fresh("replay-item");

        HttpResponse<String> first = send(post("/orders", key, itemJson(item)).build());
        // The same JSON with members reordered and spaced differently: the same request.
        HttpResponse<String> retry = send(post("/orders", key, "{ \"item\" : \"" + item + "\" }").build());

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(retry.headers().firstValue("X-Run")).isEqualTo(first.headers().firstValue("X-Run"));
        assertThat(first.headers().firstValue("Set-Cookie")).isPresent();
        assertThat(retry.headers().firstValue("Set-Cookie")).as("Set-Cookie is not replayed").isEmpty();
        assertThat(app.effects().count(item)).as("the handler ran once").isEqualTo(1);
    }

    @Test
    void annotatedPutAndDeleteHandlersAreCoveredOneEffectEachAndTheRetryIsAReplay() throws Exception {
        String putKey = fresh("put");
        String putItem = fresh("put-item");
        String deleteKey = fresh("delete");
        String deleteItem = fresh("delete-item");
        HttpRequest put = HttpRequest.newBuilder(app.uri("/orders/7")).timeout(Duration.ofSeconds(90))
                .header("Content-Type", JSON).header(KEY_HEADER, putKey)
                .PUT(HttpRequest.BodyPublishers.ofString(itemJson(putItem), StandardCharsets.UTF_8)).build();
        HttpRequest delete = HttpRequest.newBuilder(app.uri("/orders/7/items/" + deleteItem)).timeout(Duration.ofSeconds(90))
                .header(KEY_HEADER, deleteKey).DELETE().build();

        HttpResponse<String> firstPut = send(put);
        HttpResponse<String> retryPut = send(put);
        HttpResponse<String> firstDelete = send(delete);
        HttpResponse<String> retryDelete = send(delete);

        assertThat(firstPut.statusCode()).isEqualTo(201);
        assertThat(replayed(firstPut)).isFalse();
        assertThat(replayed(retryPut)).as("PUT with @Idempotent is covered").isTrue();
        assertThat(retryPut.body()).isEqualTo(firstPut.body());
        assertThat(app.effects().count(putItem)).isEqualTo(1);
        assertThat(firstDelete.statusCode()).isEqualTo(200);
        assertThat(replayed(retryDelete)).as("DELETE with @Idempotent is covered").isTrue();
        assertThat(retryDelete.body()).isEqualTo(firstDelete.body());
        assertThat(app.effects().count(deleteItem)).isEqualTo(1);
    }

    @Test
    void sameKeyWithAnotherBodyIs422AndNothingRuns() throws Exception {
        String key = fresh("mismatch");
        String item = fresh("mismatch-item");
        String other = fresh("other-item");

        HttpResponse<String> first = send(post("/orders", key, itemJson(item)).build());
        HttpResponse<String> reused = send(post("/orders", key, itemJson(other)).build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertProblem(reused, 422, "key-mismatch", key, item, other);
        assertThat(app.effects().count(other)).as("the second request never ran").isZero();
        assertThat(app.effects().count(item)).isEqualTo(1);
    }

    // ---- in progress --------------------------------------------------------------------------

    @Test
    void keyInProgressIs409WithRetryAfterThenTheResultReplays() throws Exception {
        String key = fresh("busy");
        String item = fresh("busy-item");
        app.gate().arm();
        CompletableFuture<HttpResponse<String>> running;
        HttpResponse<String> duplicate;
        try {
            running = CLIENT.sendAsync(post("/reject", key, itemJson(item)).build(), HttpResponse.BodyHandlers.ofString());
            app.gate().awaitEntered();

            duplicate = send(post("/reject", key, itemJson(item)).build());
        } finally {
            app.gate().release();
        }
        HttpResponse<String> first = running.get(90, TimeUnit.SECONDS);
        HttpResponse<String> afterwards = send(post("/reject", key, itemJson(item)).build());

        assertProblem(duplicate, 409, "key-in-use", key, item);
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(afterwards)).isTrue();
        assertThat(afterwards.body()).isEqualTo(first.body());
        assertThat(app.effects().count(item)).isEqualTo(1);
    }

    // ---- failures release the key -------------------------------------------------------------

    @Test
    void handlerExceptionReleasesTheKeyAndTheRetryRunsAgain() throws Exception {
        String key = fresh("throws");
        String item = fresh("throws-item");

        HttpResponse<String> failed = send(post("/flaky", key, itemJson(item)).build());
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(app.record(ScopeResolver.ANONYMOUS, "POST /flaky", key)).as("released: no live record").isEmpty();

        HttpResponse<String> retry = send(post("/flaky", key, itemJson(item)).build());

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isFalse();
        assertThat(app.effects().count(item)).as("the retry ran the handler again").isEqualTo(2);
        assertThat(app.record(ScopeResolver.ANONYMOUS, "POST /flaky", key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void a5xxAnswerIsNotStoredAndTheRetryRunsAgain() throws Exception {
        String key = fresh("503");
        String item = fresh("503-item");

        HttpResponse<String> unavailable = send(post("/unavailable", key, itemJson(item)).build());
        HttpResponse<String> retry = send(post("/unavailable", key, itemJson(item)).build());
        HttpResponse<String> again = send(post("/unavailable", key, itemJson(item)).build());

        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isFalse();
        assertThat(replayed(again)).as("the success is stored and replays").isTrue();
        assertThat(app.effects().count(item)).isEqualTo(2);
    }

    // ---- annotation details over HTTP -----------------------------------------------------------

    @Test
    void theScopeRouteIsTheHandlersPatternNotThePath() throws Exception {
        String key = fresh("pattern");
        String item = fresh("pattern-item");

        HttpResponse<String> first = send(post("/orders/1/pay", key, itemJson(item)).build());
        HttpResponse<String> otherOrder = send(post("/orders/2/pay", key, itemJson(item)).build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(app.scopesOfKey(key)).as("one record, scoped by the route pattern")
                .containsExactly(ScopeResolver.ANONYMOUS + " POST /orders/{id}/pay");
        assertProblem(otherOrder, 422, "key-mismatch", key);
        assertThat(app.effects().count(item)).isEqualTo(1);
    }

    @Test
    void optionalKeyRunsWithoutOneAndReplaysWithOne() throws Exception {
        String item = fresh("optional-item");
        String key = fresh("optional");

        HttpResponse<String> withoutKey1 = send(post("/optional", null, itemJson(item)).build());
        HttpResponse<String> withoutKey2 = send(post("/optional", null, itemJson(item)).build());
        HttpResponse<String> withKey1 = send(post("/optional", key, itemJson(item)).build());
        HttpResponse<String> withKey2 = send(post("/optional", key, itemJson(item)).build());

        assertThat(withoutKey1.statusCode()).isEqualTo(201);
        assertThat(withoutKey2.statusCode()).isEqualTo(201);
        assertThat(replayed(withoutKey2)).isFalse();
        assertThat(replayed(withKey1)).isFalse();
        assertThat(replayed(withKey2)).isTrue();
        assertThat(app.effects().count(item)).isEqualTo(3);
    }

    @Test
    void classLevelAnnotationCoversTheControllerAndAMethodAnnotationWins() throws Exception {
        String item = fresh("refund");

        HttpResponse<String> withoutKey = send(post("/refunds", null, itemJson(item)).build());
        HttpResponse<String> previewWithoutKey = send(post("/refunds/preview", null, itemJson(item)).build());
        String key = fresh("refund-key");
        HttpResponse<String> first = send(post("/refunds", key, itemJson(item)).build());
        HttpResponse<String> retry = send(post("/refunds", key, itemJson(item)).build());

        assertProblem(withoutKey, 400, "key-missing");
        assertThat(previewWithoutKey.statusCode()).as("@Idempotent(required = false) on the method").isEqualTo(200);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isTrue();
        assertThat(app.effects().count(item)).isEqualTo(2);
    }

    @Test
    void perEndpointRetentionComesFromTheAnnotation() throws Exception {
        String key = fresh("archive");
        String defaultKey = fresh("orders");
        Instant before = Instant.now();

        assertThat(send(post("/archive", key, itemJson(fresh("archive-item"))).build()).statusCode()).isEqualTo(201);
        assertThat(send(post("/orders", defaultKey, itemJson(fresh("orders-item"))).build()).statusCode()).isEqualTo(201);

        Instant archiveExpiry = app.record(ScopeResolver.ANONYMOUS, "POST /archive", key).orElseThrow().expiresAt();
        Instant ordersExpiry = app.record(ScopeResolver.ANONYMOUS, "POST /orders", defaultKey).orElseThrow().expiresAt();
        // Days apart, so no clock skew between this JVM and the database can blur them.
        assertThat(archiveExpiry).as("@Idempotent(retention = \"7d\")").isAfter(before.plus(6, ChronoUnit.DAYS));
        assertThat(ordersExpiry).as("idem.retention = 24h").isBefore(before.plus(2, ChronoUnit.DAYS))
                .isAfter(before.plus(20, ChronoUnit.HOURS));
    }

    @Test
    void requestBodyOverTheConfiguredCapIs413AndNothingRuns() throws Exception {
        String item = fresh("big");
        String padding = "x".repeat(70 * 1024); // idem.max-request-bytes=64KB in the test application
        int rowsBefore = app.rows();

        HttpResponse<String> response = send(post("/orders", fresh("big-key"),
                "{\"item\":\"" + item + "\",\"padding\":\"" + padding + "\"}").build());

        assertProblem(response, 413, "request-too-large", item);
        assertThat(app.effects().count(item)).isZero();
        assertThat(app.rows()).isEqualTo(rowsBefore);
    }
}
