package dev.idem.jakarta.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import dev.idem.InFlightPolicy;
import dev.idem.micrometer.MicrometerIdemListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.TestDatabase;
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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP semantics of {@link IdempotencyFeature} over real HTTP, on a real store (PostgreSQL and
 * SQLite through {@link JdbcIdempotencyStore}); each subclass runs it on one Jakarta REST runtime.
 */
abstract class IdempotencyContract {
    private static final String KEY_HEADER = IdempotencyFeature.DEFAULT_HEADER_NAME;
    /** One client for the run (java.net.http on Java 17 cannot be closed); HTTP/1.1. */
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private final RestServer.Runtime runtime;
    private final List<RestServer> servers = new ArrayList<>();
    private TestDatabase db;
    private JdbcIdempotencyStore store;
    private OutageStore outage;
    final Payments payments = new Payments();

    IdempotencyContract(RestServer.Runtime runtime) {
        this.runtime = runtime;
    }

    @AfterEach
    void closeAll() {
        payments.release.countDown();
        servers.forEach(RestServer::close);
        if (db != null) {
            db.close();
        }
    }

    /** A server over {@code backend}'s fresh store (or the one this test opened already). */
    private RestServer serve(Backend backend) throws Exception {
        return serve(backend, engine -> engine);
    }

    /** As {@link #serve(Backend)}, on an engine {@code settings} adjusts. */
    private RestServer serve(Backend backend, java.util.function.UnaryOperator<Idem.Builder> settings) throws Exception {
        if (db == null) {
            db = backend.open();
            store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            store.migrate();
            outage = new OutageStore(store);
        }
        Idem idem = settings.apply(Idem.builder().store(outage).inFlightPolicy(InFlightPolicy.reject())).build();
        IdempotencyFeature feature = IdempotencyFeature.builder(idem).maxRequestBytes(1024).build();
        RestServer server = runtime.start(Set.of(feature, payments, new Declined.Mapper(), new EntityDropper()));
        servers.add(server);
        return server;
    }

    private static HttpRequest.Builder post(RestServer server, String path, String key, String json) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(server.base().resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (key != null) {
            builder.header(KEY_HEADER, key);
        }
        return builder;
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** The answer to {@code request} once the key is no longer in use by an earlier request (409), within a minute. */
    private static HttpResponse<String> sendOnceFree(HttpRequest.Builder request) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        HttpResponse<String> response = send(request);
        while (response.statusCode() == 409 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            response = send(request);
        }
        return response;
    }

    /**
     * Sends a covered POST, reads the first bytes of the answer and hangs up with a reset, as a client
     * that went away mid-download does; the server's next writes then fail.
     */
    private static void postAndHangUpMidResponse(RestServer server, String path, String key) throws IOException {
        String request = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                + KEY_HEADER + ": " + key + "\r\n\r\n{}";
        try (java.net.Socket socket = new java.net.Socket(server.base().getHost(), server.base().getPort())) {
            socket.setSoTimeout(60_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            byte[] first = new byte[4096];
            assertThat(socket.getInputStream().read(first)).as("the answer began").isPositive();
            socket.setSoLinger(true, 0);
        }
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    /** Asserts an RFC 9457 problem of idem's, whose body reveals none of {@code secrets}. */
    private static JsonNode assertProblem(HttpResponse<String> response, int status, String problem, String... secrets) {
        assertThat(response.statusCode()).as("status of %s", problem).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode json = JsonMapper.shared().readTree(response.body());
        assertThat(json.get("type").asString()).isEqualTo("urn:idem:problem:" + problem);
        assertThat(json.get("status").asInt()).isEqualTo(status);
        assertThat(json.get("detail").asString()).isNotBlank();
        for (String secret : secrets) {
            assertThat(response.body()).doesNotContain(secret);
        }
        return json;
    }

    private int rows() throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + store.tableName())) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void firstCallExecutesAndRetryReplaysStatusBodyAndHeaders(Backend backend) throws Exception {
        RestServer server = serve(backend);
        HttpResponse<String> first = send(post(server, "/payments", "key-replay-1", "{\"amount\": 10}"));
        HttpResponse<String> retry = send(post(server, "/payments", "key-replay-1", "{\"amount\":10}"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("{\"run\":1,\"received\":\"{\\\"amount\\\": 10}\"}");
        assertThat(replayed(first)).isFalse();
        assertThat(first.headers().firstValue("Set-Cookie")).isPresent();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(retry.headers().firstValue("X-Handler-Run")).hasValue("1");
        assertThat(retry.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("Set-Cookie")).as("cookies belong to the first caller").isEmpty();
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = "SQLITE")
    void answersAdvertiseTheRetentionAndAKeyPastItIs410FromItsTombstone(Backend backend) throws Exception {
        RestServer server = serve(backend, engine -> engine.lease(Duration.ofMillis(500)).retention(Duration.ofSeconds(1))
                .tombstones(Duration.ofHours(1)));
        HttpResponse<String> first = send(post(server, "/payments", "key-expired-1", "{\"amount\":10}"));
        HttpResponse<String> replay = send(post(server, "/payments", "key-expired-1", "{\"amount\":10}"));
        Thread.sleep(2_000); // past the 1 s retention
        HttpResponse<String> late = send(post(server, "/payments", "key-expired-1", "{\"amount\":10}"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(replay)).isTrue();
        assertProblem(late, 410, "key-expired", "key-expired-1", "amount");
        for (HttpResponse<String> response : List.of(first, replay, late)) {
            assertThat(response.headers().allValues("Idempotency-Key-Retention")).as("on the %s", response.statusCode()).containsExactly("1");
        }
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void sameKeyWithAnotherBodyIs422(Backend backend) throws Exception {
        RestServer server = serve(backend);
        send(post(server, "/payments", "key-mismatch-1", "{\"amount\":10}"));
        HttpResponse<String> other = send(post(server, "/payments", "key-mismatch-1", "{\"amount\":99}"));

        assertProblem(other, 422, "key-mismatch", "key-mismatch-1", "99");
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void duplicateWhileTheFirstRunsIs409WithRetryAfterAndTheResourceRunsOnce(Backend backend) throws Exception {
        RestServer server = serve(backend);
        CompletableFuture<HttpResponse<String>> first = CLIENT.sendAsync(
                post(server, "/payments/slow", "key-inflight-1", "{}").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(payments.slowEntered.await(60, TimeUnit.SECONDS)).as("the first request reached the resource").isTrue();

        HttpResponse<String> duplicate = send(post(server, "/payments/slow", "key-inflight-1", "{}"));
        payments.release.countDown();

        assertProblem(duplicate, 409, "key-in-use", "key-inflight-1");
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
        assertThat(first.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(replayed(send(post(server, "/payments/slow", "key-inflight-1", "{}")))).isTrue();
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void missingInvalidOrRepeatedKeysAreAnsweredPerTheTable(Backend backend) throws Exception {
        RestServer server = serve(backend);

        assertProblem(send(post(server, "/payments", null, "{}")), 400, "key-missing");
        assertProblem(send(post(server, "/payments", "x".repeat(300), "{}")), 400, "key-invalid", "x".repeat(300));
        assertProblem(send(post(server, "/payments", "k1", "{}").header(KEY_HEADER, "k2")), 400, "key-invalid");
        HttpResponse<String> optional = send(post(server, "/payments/optional", null, "{}"));

        assertThat(optional.statusCode()).as("a key-optional method runs without a key").isEqualTo(201);
        assertThat(payments.runs).hasValue(1);
        assertThat(rows()).as("nothing stored without a key").isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void malformedJsonIs400ProblemAndNothingRuns(Backend backend) throws Exception {
        RestServer server = serve(backend);
        HttpResponse<String> response = send(post(server, "/payments", "key-malformed-1", "{\"amount\": 10,"));

        assertProblem(response, 400, "malformed-json", "key-malformed-1", "amount");
        assertThat(payments.runs).hasValue(0);
        assertThat(rows()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void bodyOverTheLimitIs413(Backend backend) throws Exception {
        RestServer server = serve(backend);
        HttpResponse<String> response = send(post(server, "/payments", "key-large-1", "{\"pad\":\"" + "x".repeat(2000) + "\"}"));

        assertProblem(response, 413, "request-too-large", "key-large-1");
        assertThat(payments.runs).hasValue(0);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aThrowingResourceGivesTheKeyBackSoTheRetryRunsAgain(Backend backend) throws Exception {
        RestServer server = serve(backend);
        HttpResponse<String> failed = send(post(server, "/payments/fails", "key-throws-1", "{}"));
        HttpResponse<String> retry = send(post(server, "/payments/fails", "key-throws-1", "{}"));

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isFalse();
        assertThat(payments.runs).hasValue(2);
        assertThat(replayed(send(post(server, "/payments/fails", "key-throws-1", "{}")))).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aMappedExceptionIsAResponseTheStoragePolicyJudges(Backend backend) throws Exception {
        RestServer server = serve(backend);
        HttpResponse<String> refused = send(post(server, "/payments/declined?status=400", "key-mapped-400", "{}"));
        HttpResponse<String> refusedAgain = send(post(server, "/payments/declined?status=400", "key-mapped-400", "{}"));
        HttpResponse<String> unavailable = send(post(server, "/payments/declined?status=503", "key-mapped-503", "{}"));
        HttpResponse<String> unavailableAgain = send(post(server, "/payments/declined?status=503", "key-mapped-503", "{}"));

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refusedAgain.statusCode()).isEqualTo(400);
        assertThat(refusedAgain.body()).isEqualTo("{\"declined\":400}");
        assertThat(replayed(refusedAgain)).as("a 4xx is stored by the default policy").isTrue();
        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(replayed(unavailableAgain)).as("a 5xx is not stored: the key was given back").isFalse();
        assertThat(payments.runs).hasValue(3);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anUnannotatedResourceIsUntouched(Backend backend) throws Exception {
        RestServer server = serve(backend);
        HttpResponse<String> first = send(post(server, "/payments/plain", "key-plain-1", "{}"));
        HttpResponse<String> second = send(post(server, "/payments/plain", "key-plain-1", "{\"other\":1}"));

        assertThat(first.body()).isEqualTo("{\"plain\":1}");
        assertThat(second.body()).isEqualTo("{\"plain\":2}");
        assertThat(replayed(second)).isFalse();
        assertThat(rows()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void storeOutageIs503WithRetryAfterAndTheResourceDoesNotRun(Backend backend) throws Exception {
        RestServer server = serve(backend);
        outage.down = true;
        HttpResponse<String> down = send(post(server, "/payments", "key-outage-1", "{}"));
        outage.down = false;
        HttpResponse<String> after = send(post(server, "/payments", "key-outage-1", "{}"));

        assertProblem(down, 503, "store-unavailable", "key-outage-1");
        assertThat(down.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(after.statusCode()).isEqualTo(201);
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void storeFailingWhenTheResponseIsStoredIs503NotTheResourcesResponse(Backend backend) throws Exception {
        RestServer server = serve(backend);
        outage.completeDown = true;
        HttpResponse<String> response = send(post(server, "/payments", "key-complete-down-1", "{}"));

        assertProblem(response, 503, "store-unavailable", "key-complete-down-1");
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.headers().firstValue("Location")).as("none of the resource's headers").isEmpty();
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aKeySentAcrossAServerRestartTakesEffectOnce(Backend backend) throws Exception {
        RestServer before = serve(backend);
        HttpResponse<String> first = send(post(before, "/payments", "key-restart-1", "{\"amount\":5}"));
        before.close();
        servers.remove(before);
        RestServer after = serve(backend);
        HttpResponse<String> retry = send(post(after, "/payments", "key-restart-1", "{\"amount\":5}"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(replayed(retry)).isTrue();
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aClientHangingUpDuringAnAnswerOverTheCapLeavesOneEffectAndTheRetryReplaysItWithoutItsBody(Backend backend) throws Exception {
        RestServer server = serve(backend);
        postAndHangUpMidResponse(server, "/payments/large", "key-hangup-1");
        HttpResponse<String> retry = sendOnceFree(post(server, "/payments/large", "key-hangup-1", "{}"));

        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(replayed(retry)).as("the effect ran: the retry is its replay, not a second run").isTrue();
        assertThat(retry.headers().firstValue("Idempotent-Body-Omitted")).hasValue("true");
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLaterFilterThatDropsTheEntityStillEndsTheExecutionAndTheRetryReplaysWhatTheClientGot(Backend backend) throws Exception {
        RestServer server = serve(backend);
        HttpResponse<String> first = send(post(server, "/payments", "key-dropped-1", "{}").header(EntityDropper.HEADER, "yes"));
        HttpResponse<String> retry = send(post(server, "/payments", "key-dropped-1", "{}"));

        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(first.body()).isEmpty();
        assertThat(retry.statusCode()).as("not 409: the execution ended").isEqualTo(202);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEmpty();
        assertThat(payments.runs).hasValue(1);
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = "SQLITE")
    void theScopeNamesTheRouteTemplateSoTheOperationTagHasOneValuePerRoute(Backend backend) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RestServer server = serve(backend, engine -> engine.listener(new MicrometerIdemListener(registry)));
        HttpResponse<String> first = send(post(server, "/payments/1/capture", "key-route-1", "{}"));
        HttpResponse<String> second = send(post(server, "/payments/2/capture", "key-route-2", "{}"));
        HttpResponse<String> sameKeyOtherId = send(post(server, "/payments/2/capture", "key-route-1", "{}"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertProblem(sameKeyOtherId, 422, "key-mismatch", "key-route-1"); // one scope, as on the starter; the path is fingerprinted
        assertThat(registry.find(MicrometerIdemListener.CLAIMS).meters()).extracting(meter -> meter.getId().getTag(MicrometerIdemListener.OPERATION_TAG))
                .containsOnly("POST /payments/{id}/capture");
        assertThat(registry.get(MicrometerIdemListener.CLAIMS).tags(MicrometerIdemListener.OUTCOME_TAG, "acquired").counter().count()).isEqualTo(2);
        assertThat(payments.runs).hasValue(2);
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = "SQLITE")
    void aSubResourcesScopeNamesThePathItsClassesCannotTellTheTemplate(Backend backend) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RestServer server = serve(backend, engine -> engine.listener(new MicrometerIdemListener(registry)));
        HttpResponse<String> first = send(post(server, "/payments/7/refunds", "key-locator-1", "{}"));
        HttpResponse<String> retry = send(post(server, "/payments/7/refunds", "key-locator-1", "{}"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isTrue();
        assertThat(registry.find(MicrometerIdemListener.CLAIMS).meters()).extracting(meter -> meter.getId().getTag(MicrometerIdemListener.OPERATION_TAG))
                .containsOnly("POST /payments/7/refunds");
        assertThat(payments.runs).hasValue(1);
    }
}
