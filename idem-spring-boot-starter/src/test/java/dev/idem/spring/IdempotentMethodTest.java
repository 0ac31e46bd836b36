package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spring.methods.Ledger;
import dev.idem.spring.methods.MethodApplication;
import dev.idem.spring.methods.Payments;
import dev.idem.spring.methods.Payments.Order;
import dev.idem.spring.methods.Payments.Receipt;
import dev.idem.spring.methods.Payments.Refund;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@link IdempotentMethod} on a service of a real Spring Boot application, on PostgreSQL and SQLite:
 * one run per key under concurrency, stored return values, fingerprints, failures and in-flight
 * policies. One application per backend for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentMethodTest {
    private static final int CALLERS = 32;
    private final Map<Backend, TestDatabase> databases = new EnumMap<>(Backend.class);
    private final Map<Backend, ConfigurableApplicationContext> apps = new EnumMap<>(Backend.class);

    private ConfigurableApplicationContext app(Backend backend) {
        return apps.computeIfAbsent(backend, b -> {
            TestDatabase db = b.open();
            databases.put(b, db);
            return MethodApplication.start("--spring.datasource.url=" + Backend.jdbcUrl(db), "--spring.main.banner-mode=off",
                    "--logging.level.root=WARN", "--idem.tombstones=1h");
        });
    }

    private Payments payments(Backend backend) {
        return app(backend).getBean(Payments.class);
    }

    @AfterAll
    void close() {
        apps.values().forEach(ConfigurableApplicationContext::close);
        databases.values().forEach(TestDatabase::close);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void thirtyTwoConcurrentCallsOnOneKeyRunOnceAndAllReturnTheSameValue(Backend backend) throws Exception {
        Payments payments = payments(backend);
        MethodApplication.Conflicts conflicts = app(backend).getBean(MethodApplication.Conflicts.class);
        String scope = "method " + Payments.class.getName() + "#charge(" + Order.class.getName() + ")";
        int conflictsBefore = conflicts.of(scope);
        Order order = new Order("order-" + UUID.randomUUID(), 1250);
        CountDownLatch gate = payments.block();
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        try {
            List<Future<Receipt>> calls = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                calls.add(pool.submit(() -> payments.charge(order)));
            }
            // Let the first call finish only once the 31 others are waiting for it.
            awaitUntil(() -> conflicts.of(scope) - conflictsBefore >= CALLERS - 1, "31 callers waiting on the running call");
            gate.countDown();
            List<Receipt> receipts = new ArrayList<>();
            for (Future<Receipt> call : calls) {
                receipts.add(call.get(120, TimeUnit.SECONDS));
            }
            assertThat(payments.effects(order.id(), "charge")).as("one execution").isEqualTo(1);
            assertThat(receipts).hasSize(CALLERS).containsOnly(receipts.get(0));
            assertThat(receipts.get(0).orderId()).isEqualTo(order.id());
            assertThat(receipts.get(0).attempt()).isEqualTo(1);
        } finally {
            gate.countDown();
            pool.shutdownNow();
        }
        // A later call is a replay too, read back from the store as the method's return type.
        assertThat(payments.charge(order)).isEqualTo(payments.charge(order));
        assertThat(payments.effects(order.id(), "charge")).isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherFingerprintIsRefusedWithoutNamingTheKey() throws Exception {
        Payments payments = payments(Backend.POSTGRESQL);
        String id = "order-" + UUID.randomUUID();
        Receipt first = payments.charge(new Order(id, 100));

        assertThatThrownBy(() -> payments.charge(new Order(id, 999)))
                .isInstanceOf(IdempotentMethodMismatchException.class)
                .hasMessageContaining(Payments.class.getName() + "#charge")
                .hasMessageNotContaining(id)
                .hasMessageNotContaining("999");
        assertThat(payments.charge(new Order(id, 100))).isEqualTo(first);
        assertThat(payments.effects(id, "charge")).isEqualTo(1);
    }

    @Test
    void aCallAfterTheResultsRetentionIsToldItExpiredAndDoesNotRun() throws Exception {
        Payments payments = payments(Backend.POSTGRESQL);
        String id = "order-" + UUID.randomUUID();
        Instant before = Instant.now();
        assertThat(payments.shortLived(id)).isEqualTo("done");
        Thread.sleep(2_000); // past the method's 1 s retention; its tombstone stays for idem.tombstones

        assertThatThrownBy(() -> payments.shortLived(id))
                .isInstanceOfSatisfying(IdempotentMethodExpiredException.class,
                        e -> assertThat(e.completedAt()).isBetween(before, Instant.now()))
                .hasMessageContaining(Payments.class.getName() + "#shortLived")
                .hasMessageNotContaining(id);
        assertThat(payments.effects(id, "short")).isEqualTo(1);
    }

    @Test
    void equalKeysOfDifferentMethodsDoNotCollide() throws Exception {
        Payments payments = payments(Backend.POSTGRESQL);
        String id = "order-" + UUID.randomUUID();
        Receipt charged = payments.charge(new Order(id, 100));
        Receipt refunded = payments.refund(new Order(id, 100));

        assertThat(refunded.amount()).isEqualTo(-100);
        assertThat(charged.amount()).isEqualTo(100);
        assertThat(payments.effects(id, "charge")).isEqualTo(1);
        assertThat(payments.effects(id, "refund")).isEqualTo(1);
    }

    @Test
    void anExceptionGivesTheKeyBackSoARetryRunsAgainThenReplays() throws Exception {
        Payments payments = payments(Backend.POSTGRESQL);
        String id = "order-" + UUID.randomUUID();
        payments.failNext(1);

        assertThatThrownBy(() -> payments.flaky(id)).isInstanceOf(IOException.class).hasMessage("the downstream is down");
        List<Receipt> retried = payments.flaky(id);
        List<Receipt> replayed = payments.flaky(id);

        assertThat(payments.effects(id, "flaky")).as("the failed run and the retry; the replay ran nothing").isEqualTo(2);
        assertThat(replayed).isEqualTo(retried);
        assertThat(replayed.get(0)).isInstanceOf(Receipt.class); // List<Receipt>, not a list of maps
    }

    @Test
    void aCallWhileAnotherRunsIsRejectedAsInProgressAndRetrySafe() throws Exception {
        Payments payments = payments(Backend.POSTGRESQL);
        MethodApplication.Conflicts conflicts = app(Backend.POSTGRESQL).getBean(MethodApplication.Conflicts.class);
        Order order = new Order("order-" + UUID.randomUUID(), 5);
        CountDownLatch gate = payments.block();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Receipt> running = pool.submit(() -> payments.refund(order));
            awaitUntil(() -> payments.effects(order.id(), "refund") == 1, "the first call running");

            assertThatThrownBy(() -> payments.refund(order))
                    .isInstanceOf(IdempotentMethodInProgressException.class)
                    .hasMessageContaining("in progress")
                    .hasMessageContaining("safe")
                    .hasMessageNotContaining(order.id())
                    .satisfies(e -> assertThat(((IdempotentMethodInProgressException) e).retryAfter()).isPositive());
            gate.countDown();
            Receipt first = running.get(60, TimeUnit.SECONDS); // completed: a retry now gets its stored value
            assertThat(payments.refund(order)).isEqualTo(first);
            assertThat(payments.effects(order.id(), "refund")).isEqualTo(1);
            assertThat(conflicts.of("method " + Payments.class.getName() + "#refund(" + Order.class.getName() + ")")).isPositive();
        } finally {
            gate.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aVoidMethodStoresNothingButRunsOncePerKey() {
        Payments payments = payments(Backend.SQLITE);
        String id = "order-" + UUID.randomUUID();
        payments.note(id);
        payments.note(id);
        payments.note(id);
        assertThat(payments.effects(id, "note")).isEqualTo(1);
    }

    @Test
    void aNullKeyFailsTheCallWithoutRunningIt() {
        Payments payments = payments(Backend.SQLITE);
        assertThatThrownBy(() -> payments.flaky(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key expression '#p0' gave null");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void overloadedMethodsHaveTheirOwnDefaultScopes(Backend backend) throws Exception {
        Payments payments = payments(backend);
        String id = "order-" + UUID.randomUUID();
        Receipt charged = payments.charge(new Order(id, 100));
        Receipt refunded = payments.charge(new Refund(id, 30));

        assertThat(refunded.amount()).as("the refund ran, not a replay of the charge").isEqualTo(-30);
        assertThat(charged.amount()).isEqualTo(100);
        assertThat(payments.effects(id, "charge")).isEqualTo(1);
        assertThat(payments.effects(id, "charge-refund")).isEqualTo(1);
        assertThat(payments.charge(new Refund(id, 30))).isEqualTo(refunded);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void twoBeansOfOneClassHaveTheirOwnDefaultScopesAndTheKeyExpressionSeesTheTarget(Backend backend) {
        Ledger eur = app(backend).getBean("eurLedger", Ledger.class);
        Ledger usd = app(backend).getBean("usdLedger", Ledger.class);
        String entry = "entry-" + UUID.randomUUID();

        assertThat(eur.post(entry)).isEqualTo("EUR " + entry);
        assertThat(usd.post(entry)).as("the USD ledger ran, not a replay of the EUR one").isEqualTo("USD " + entry);
        assertThat(eur.post(entry)).isEqualTo("EUR " + entry);
        // One explicit scope for both: the key expression's #root.target tells them apart.
        assertThat(eur.reverse(entry)).isEqualTo("EUR reversed " + entry);
        assertThat(usd.reverse(entry)).isEqualTo("USD reversed " + entry);
        assertThat(usd.reverse(entry)).isEqualTo("USD reversed " + entry);
        assertThat(eur.posts()).isEqualTo(2);
        assertThat(usd.posts()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aReturnValueThatCannotBeEncodedIsAFailureAfterTheEffectForEveryCaller(Backend backend) {
        Payments payments = payments(backend);
        String id = "order-" + UUID.randomUUID();
        for (int call = 1; call <= 3; call++) {
            assertThatThrownBy(() -> payments.cyclic(id))
                    .as("call %d", call)
                    .isInstanceOf(IdempotentMethodResultNotStoredException.class)
                    .hasMessageContaining(Payments.class.getName() + "#cyclic")
                    .hasMessageContaining("JSON")
                    .hasMessageNotContaining(id);
        }
        assertThat(payments.effects(id, "cyclic")).as("the method ran once; the key was not given back").isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aReturnValueOverTheResponseCapIsAFailureAfterTheEffectForEveryCaller(Backend backend) {
        Payments payments = payments(backend);
        String id = "order-" + UUID.randomUUID();
        int overTheCap = 1_200_000; // idem.max-response-bytes is 1 MB
        for (int call = 1; call <= 3; call++) {
            assertThatThrownBy(() -> payments.large(id, overTheCap))
                    .as("call %d", call)
                    .isInstanceOf(IdempotentMethodResultNotStoredException.class)
                    .hasMessageContaining(Payments.class.getName() + "#large")
                    .hasMessageContaining("over the cap of 1048576 bytes")
                    .hasMessageNotContaining(id);
        }
        assertThat(payments.effects(id, "large")).isEqualTo(1);
        String small = "order-" + UUID.randomUUID();
        assertThat(payments.large(small, 10)).isEqualTo("x".repeat(10));
        assertThat(payments.large(small, 10)).isEqualTo("x".repeat(10));
        assertThat(payments.effects(small, "large")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void equalMapArgumentsInAnotherOrderHaveTheSameFingerprint(Backend backend) {
        Payments payments = payments(backend);
        String id = "order-" + UUID.randomUUID();
        Map<String, String> ab = new LinkedHashMap<>();
        ab.put("a", "1");
        ab.put("b", "2");
        Map<String, String> ba = new LinkedHashMap<>();
        ba.put("b", "2");
        ba.put("a", "1");

        Receipt first = payments.tag(id, ab);
        assertThat(payments.tag(id, ba)).as("replayed, not a mismatch").isEqualTo(first);
        assertThat(payments.effects(id, "tag")).isEqualTo(1);
        assertThatThrownBy(() -> payments.tag(id, Map.of("a", "1", "b", "3"))).isInstanceOf(IdempotentMethodMismatchException.class);
    }

    @Test
    void aFingerprintMapWhoseKeysCannotBeSortedFailsTheCallBeforeItRuns() {
        Payments payments = payments(Backend.SQLITE);
        String id = "order-" + UUID.randomUUID();
        Map<Object, String> mixed = new LinkedHashMap<>();
        mixed.put("a", "secret-value");
        mixed.put(1, "1");
        @SuppressWarnings({"unchecked", "rawtypes"})
        Map<String, String> attributes = (Map) mixed;

        assertThatThrownBy(() -> payments.tag(id, attributes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Payments.class.getName() + "#tag: the fingerprint '#attributes' could not be written")
                .hasMessageNotContaining("secret-value")
                .hasMessageNotContaining(id);
        assertThat(payments.effects(id, "tag")).isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theFirstCallerGetsWhatWasStoredNotAnObjectTheServiceChangesLater(Backend backend) {
        Payments payments = payments(backend);
        String id = "order-" + UUID.randomUUID();
        List<String> first = payments.items(id);
        payments.lastItems().add("added-after-return");

        assertThat(first).containsExactly("a");
        assertThat(payments.items(id)).isEqualTo(first);
        assertThat(payments.effects(id, "items")).isEqualTo(1);
    }

    static void awaitUntil(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }
}
