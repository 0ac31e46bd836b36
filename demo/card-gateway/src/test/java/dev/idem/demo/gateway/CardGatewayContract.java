package dev.idem.demo.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.testing.TestDatabase;
import java.time.Duration;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * What the card gateway promises, over real sockets and a real database; one tiny subclass per
 * database. Each test starts its own gateway on a cleared ledger.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CardGatewayContract {
    private TestDatabase database;
    private final List<CardGateway> gateways = new ArrayList<>();

    protected abstract TestDatabase openDatabase();

    @BeforeAll
    void openDb() {
        database = openDatabase();
    }

    @AfterAll
    void closeDb() {
        if (database != null) {
            database.close();
        }
    }

    @AfterEach
    void stopGateways() {
        gateways.forEach(CardGateway::close);
        gateways.clear();
    }

    private GatewayClient start(GatewayConfig config) {
        CardGateway gateway = CardGateway.start(config.withReset(true), database.dataSource());
        gateways.add(gateway);
        return new GatewayClient(gateway.baseUrl());
    }

    private GatewayClient start() {
        return start(GatewayConfig.defaults());
    }

    @Test
    void aRepeatedChargeIsReplayedAndChargedOnce() throws Exception {
        GatewayClient gateway = start();

        HttpResponse<String> first = gateway.charge("key-1", GatewayClient.body(1250, "EUR", "card-1"));
        HttpResponse<String> again = gateway.charge("key-1", "{ \"card\":\"card-1\", \"currency\":\"EUR\",  \"amount\":1250 }");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        JsonNode charge = GatewayClient.JSON.readTree(first.body());
        assertThat(charge.get("chargeId").stringValue()).startsWith("ch_");
        assertThat(charge.get("amount").longValue()).isEqualTo(1250);
        assertThat(charge.get("currency").stringValue()).isEqualTo("EUR");
        assertThat(charge.get("key").stringValue()).isEqualTo("key-1");

        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(again.body()).isEqualTo(first.body());

        JsonNode ledger = gateway.ledger();
        assertThat(ledger.get("count").intValue()).isEqualTo(1);
        assertThat(ledger.get("perKey").get("key-1").intValue()).isEqualTo(1);
        assertThat(ledger.get("replaysPerKey").get("key-1").intValue()).as("the second request, answered as a replay").isEqualTo(1);
        JsonNode row = ledger.get("charges").get(0);
        assertThat(row.get("chargeId").stringValue()).isEqualTo(charge.get("chargeId").stringValue());
        assertThat(row.get("card").stringValue()).isEqualTo("card-1");
        assertThat(row.get("createdAt").stringValue()).isNotBlank();
    }

    @Test
    void aKeyPastItsRetentionIsForgottenSoTheSameChargeWithItIsChargedAgain() throws Exception {
        GatewayClient gateway = start(GatewayConfig.defaults().withRetention(java.time.Duration.ofSeconds(1)));

        HttpResponse<String> first = gateway.charge("key-late", GatewayClient.body(700, "EUR", "card-late"));
        Thread.sleep(1_500);                        // past the retention: only a lower bound, never a race
        HttpResponse<String> late = gateway.charge("key-late", GatewayClient.body(700, "EUR", "card-late"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(late.statusCode()).isEqualTo(201);
        assertThat(late.headers().firstValue("Idempotent-Replayed")).as("not a replay: the key was forgotten").isEmpty();
        assertThat(late.body()).isNotEqualTo(first.body());
        assertThat(gateway.ledger().get("perKey").get("key-late").intValue()).as("charged twice under one key").isEqualTo(2);
        assertThatThrownBy(() -> GatewayConfig.defaults().withRetention(java.time.Duration.ZERO)).hasMessageContaining("retention");
    }

    @Test
    void concurrentChargesWithOneKeyMakeOneLedgerRowAndOneAnswer() throws Exception {
        GatewayClient gateway = start(GatewayConfig.defaults().withFaults(FaultPlan.parse("latency-after=50")));
        int callers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return gateway.charge("double-click", GatewayClient.body(990, "USD", "card-dc"));
                }));
            }
            go.countDown();
            Set<String> bodies = new HashSet<>();
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
                assertThat(response.statusCode()).isEqualTo(201);
                bodies.add(response.body());
            }
            assertThat(bodies).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
        JsonNode ledger = gateway.ledger();
        assertThat(ledger.get("count").intValue()).isEqualTo(1);
        assertThat(ledger.get("perKey").get("double-click").intValue()).isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherChargeIs422AndChargesNothingMore() throws Exception {
        GatewayClient gateway = start();
        assertThat(gateway.charge("key-m", GatewayClient.body(100, "EUR", "card-m")).statusCode()).isEqualTo(201);

        HttpResponse<String> other = gateway.charge("key-m", GatewayClient.body(101, "EUR", "card-m"));

        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(GatewayClient.JSON.readTree(other.body()).get("status").intValue()).isEqualTo(422);
        assertThat(gateway.ledger().get("count").intValue()).isEqualTo(1);
    }

    @Test
    void aKeyHeldInProgressElsewhereIs409WithRetryAfterAndChargesNothing() throws Exception {
        GatewayClient gateway = start();
        // Another owner (the non-transactional engine, say) holds the key with a live lease.
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(database.dataSource()).tableName(ChargeLedger.IDEM_TABLE).build();
        ChargeRequest request = new ChargeRequest(100, "EUR", "card-ip", null);
        ClaimOutcome claim = store.claim(new ClaimRequest(new RecordKey(Scope.of("merchant", "POST /charges"), IdempotencyKey.of("key-ip")),
                request.fingerprint(), Duration.ofSeconds(30), Duration.ofHours(1)));
        assertThat(claim).isInstanceOf(ClaimOutcome.Acquired.class);

        HttpResponse<String> response = gateway.charge("key-ip", GatewayClient.body(100, "EUR", "card-ip"));

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.headers().firstValue("Retry-After").map(Integer::parseInt)).hasValueSatisfying(s -> assertThat(s).isBetween(1, 30));
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(gateway.ledger().get("count").intValue()).isZero();
    }

    @Test
    void failBeforeAnswers503AndChargesNothing() throws Exception {
        GatewayClient gateway = start();

        HttpResponse<String> response = gateway.charge("key-fb", GatewayClient.body(100, "EUR", "card-fb"), "X-Fault", "fail-before");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(gateway.ledger().get("count").intValue()).isZero();
        // Nothing was claimed either: the retry charges.
        assertThat(gateway.charge("key-fb", GatewayClient.body(100, "EUR", "card-fb")).statusCode()).isEqualTo(201);
        assertThat(gateway.ledger().get("count").intValue()).isEqualTo(1);
    }

    @Test
    void failAfterCommitsTheChargeThenAnswers500AndTheRetryReplaysIt() throws Exception {
        GatewayClient gateway = start();

        HttpResponse<String> failed = gateway.charge("key-fa", GatewayClient.body(700, "GBP", "card-fa"), "X-Fault", "fail-after");

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode ledger = gateway.ledger();
        assertThat(ledger.get("count").intValue()).isEqualTo(1);
        String chargeId = ledger.get("charges").get(0).get("chargeId").stringValue();

        HttpResponse<String> retry = gateway.charge("key-fa", GatewayClient.body(700, "GBP", "card-fa"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(GatewayClient.JSON.readTree(retry.body()).get("chargeId").stringValue()).isEqualTo(chargeId);
        assertThat(gateway.ledger().get("count").intValue()).isEqualTo(1);
    }

    @Test
    void resetAfterCommitsTheChargeThenDropsTheConnectionWithoutAnAnswer() throws Exception {
        GatewayClient gateway = start();

        assertThatThrownBy(() -> gateway.charge("key-ra", GatewayClient.body(300, "CHF", "card-ra"), "X-Fault", "reset-after"))
                .isInstanceOf(IOException.class);

        assertThat(gateway.ledger().get("count").intValue()).isEqualTo(1);
        HttpResponse<String> retry = gateway.charge("key-ra", GatewayClient.body(300, "CHF", "card-ra"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(gateway.ledger().get("count").intValue()).isEqualTo(1);
    }

    @Test
    void latencyDelaysTheAnswerByAtLeastItsLength() throws Exception {
        GatewayClient gateway = start();

        long started = System.nanoTime();
        HttpResponse<String> response = gateway.charge("key-lat", GatewayClient.body(100, "EUR", "card-lat"), "X-Fault", "latency=300");
        long tookMillis = (System.nanoTime() - started) / 1_000_000;

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(tookMillis).isGreaterThanOrEqualTo(300);
    }

    @Test
    void startupFaultsApplyUnlessTheRequestHeaderReplacesThem() throws Exception {
        GatewayClient gateway = start(GatewayConfig.defaults().withFaults(FaultPlan.parse("fail-before")));

        assertThat(gateway.charge("key-s1", GatewayClient.body(100, "EUR", "card-s1")).statusCode()).isEqualTo(503);
        assertThat(gateway.charge("key-s2", GatewayClient.body(100, "EUR", "card-s2"), "X-Fault", "none").statusCode()).isEqualTo(201);
        assertThat(gateway.ledger().get("count").intValue()).isEqualTo(1);
    }

    @Test
    void aProbabilisticFaultFollowsItsSeed() throws Exception {
        List<Integer> firstRun = statusesWithFailAfterHalf(7);
        List<Integer> secondRun = statusesWithFailAfterHalf(7);

        assertThat(firstRun).containsOnly(201, 500).contains(201, 500);
        assertThat(secondRun).isEqualTo(firstRun);
    }

    private List<Integer> statusesWithFailAfterHalf(long seed) throws Exception {
        GatewayClient gateway = start(GatewayConfig.defaults().withFaults(FaultPlan.parse("fail-after=0.5")).withSeed(seed));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            statuses.add(gateway.charge("key-p" + i, GatewayClient.body(100, "EUR", "card-p" + i)).statusCode());
        }
        // Every request was charged, whatever it was answered.
        assertThat(gateway.ledger().get("count").intValue()).isEqualTo(20);
        stopGateways();
        return statuses;
    }

    static Stream<Arguments> badRequests() {
        String ok = GatewayClient.body(100, "EUR", "card-bad");
        return Stream.of(
                Arguments.of("missing key", null, ok, new String[0], 400),
                Arguments.of("empty key", "", ok, new String[0], 400),
                Arguments.of("key with a space", "a b", ok, new String[0], 400),
                Arguments.of("key over 255 chars", "k".repeat(256), ok, new String[0], 400),
                Arguments.of("invalid JSON", "key-b1", "{\"amount\":", new String[0], 400),
                Arguments.of("not an object", "key-b2", "[1,2]", new String[0], 400),
                Arguments.of("missing amount", "key-b3", "{\"currency\":\"EUR\",\"card\":\"c\"}", new String[0], 400),
                Arguments.of("negative amount", "key-b4", GatewayClient.body(-5, "EUR", "c"), new String[0], 400),
                Arguments.of("zero amount", "key-b5", GatewayClient.body(0, "EUR", "c"), new String[0], 400),
                Arguments.of("fractional amount", "key-b6", "{\"amount\":12.5,\"currency\":\"EUR\",\"card\":\"c\"}", new String[0], 400),
                Arguments.of("amount as a string", "key-b7", "{\"amount\":\"12\",\"currency\":\"EUR\",\"card\":\"c\"}", new String[0], 400),
                Arguments.of("huge amount", "key-b8", "{\"amount\":1e40,\"currency\":\"EUR\",\"card\":\"c\"}", new String[0], 400),
                Arguments.of("unknown currency", "key-b9", GatewayClient.body(100, "XXX", "c"), new String[0], 400),
                Arguments.of("missing card", "key-b10", "{\"amount\":1,\"currency\":\"EUR\"}", new String[0], 400),
                Arguments.of("empty card", "key-b11", GatewayClient.body(100, "EUR", ""), new String[0], 400),
                Arguments.of("unknown field", "key-b12", "{\"amount\":1,\"currency\":\"EUR\",\"card\":\"c\",\"cvv\":\"123\"}", new String[0], 400),
                Arguments.of("duplicate field", "key-b13", "{\"amount\":1,\"amount\":2,\"currency\":\"EUR\",\"card\":\"c\"}", new String[0], 400),
                Arguments.of("trailing garbage", "key-b14", ok + " x", new String[0], 400),
                Arguments.of("invalid X-Fault", "key-b15", ok, new String[] {"X-Fault", "explode"}, 400),
                Arguments.of("form instead of JSON", "key-b16", "amount=1", new String[] {"Content-Type", "application/x-www-form-urlencoded"}, 415),
                Arguments.of("oversized body", "key-b17", "{\"card\":\"" + "c".repeat(20_000) + "\"}", new String[0], 413));
    }

    @ParameterizedTest(name = "{0} -> {4}")
    @MethodSource("badRequests")
    void badInputIsAProblemAndChargesNothing(String what, String key, String body, String[] headers, int status) throws Exception {
        GatewayClient gateway = start();

        HttpResponse<String> response = gateway.charge(key, body, headers);

        assertThat(response.statusCode()).as(what).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = GatewayClient.JSON.readTree(response.body());
        assertThat(problem.get("status").intValue()).isEqualTo(status);
        assertThat(problem.get("detail").stringValue()).isNotBlank();
        assertThat(gateway.ledger().get("count").intValue()).isZero();
    }

    @Test
    void theLedgerListsEveryChargeAndDeleteClearsItAndItsKeys() throws Exception {
        GatewayClient gateway = start();
        gateway.charge("key-l1", "{\"amount\":1,\"currency\":\"EUR\",\"card\":\"card-l\",\"reference\":\"order-1\"}");
        gateway.charge("key-l2", GatewayClient.body(2, "RON", "card-l"));

        JsonNode ledger = gateway.ledger();
        assertThat(ledger.get("count").intValue()).isEqualTo(2);
        assertThat(ledger.get("charges").get(0).get("reference").stringValue()).isEqualTo("order-1");
        assertThat(ledger.get("charges").get(1).get("reference").isNull()).isTrue();
        assertThat(ledger.get("perKey").propertyNames()).containsExactly("key-l1", "key-l2");

        HttpResponse<String> cleared = gateway.clearLedger();
        assertThat(cleared.statusCode()).isEqualTo(200);
        assertThat(GatewayClient.JSON.readTree(cleared.body()).get("cleared").intValue()).isEqualTo(2);
        assertThat(gateway.ledger().get("count").intValue()).isZero();
        // The keys went with the charges: the same key charges anew.
        HttpResponse<String> again = gateway.charge("key-l2", GatewayClient.body(2, "RON", "card-l"));
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }
}
