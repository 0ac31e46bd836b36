package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.Sqlite;
import dev.idem.testing.NonDurableMemoryStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The phases on idem's engine (an in-memory store stands in for the durable one: these tests never
 * restart), a real SQLite payment table and a gateway fake that deduplicates by key like the real
 * one. Failures between an effect and its checkpoint are thrown, so the engine hands the key to the
 * retry as it would after a crash and a lease expiry.
 */
class PaymentProcessorTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Scope SCOPE = Scope.of("anonymous", "POST /payments");
    private static final PaymentRequest REQUEST = new PaymentRequest(1250, "EUR", "card-1");
    private static final Fingerprint FINGERPRINT = Fingerprint.builder().part("body", "card-1").build();

    @TempDir
    Path dir;
    private HikariDataSource dataSource;
    private PaymentRepository payments;
    private FakeGateway gateway;
    private Idem idem;

    /** Charges at most once per key, like the card gateway; can fail before charging or lose its answer after. */
    static final class FakeGateway implements CardGateway {
        final Map<String, String> chargeByKey = new LinkedHashMap<>();
        final List<String> keysSent = new ArrayList<>();
        int failBeforeCharging;
        int loseAnswerAfterCharging;

        @Override
        public synchronized String charge(String key, PaymentRequest payment) {
            keysSent.add(key);
            if (failBeforeCharging > 0) {
                failBeforeCharging--;
                throw PaymentProblem.gatewayFailed(503);
            }
            String charge = chargeByKey.computeIfAbsent(key, k -> "ch_" + (chargeByKey.size() + 1));
            if (loseAnswerAfterCharging > 0) {
                loseAnswerAfterCharging--;
                throw PaymentProblem.gatewayUnavailable("closed the connection without an answer");
            }
            return charge;
        }
    }

    @BeforeEach
    void setUp() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Sqlite.url(dir.resolve("payments.db")));
        config.setMaximumPoolSize(2);
        dataSource = new HikariDataSource(config);
        payments = new PaymentRepository(dataSource);
        payments.createTable();
        gateway = new FakeGateway();
        idem = Idem.builder().store(new NonDurableMemoryStore()).build();
    }

    @AfterEach
    void tearDown() {
        dataSource.close();
    }

    private PaymentProcessor processor(boolean freshGatewayKeys) {
        return new PaymentProcessor(payments, gateway, CrashPoints.none(), JSON, freshGatewayKeys);
    }

    /** One request with {@code key}, as the filter runs it: phases, then the stored 201. */
    private Outcome pay(PaymentProcessor processor, String key, AtomicReference<String> downstreamKey) {
        return idem.execute(SCOPE, IdempotencyKey.parse(key), FINGERPRINT, execution -> {
            downstreamKey.set(execution.downstreamKey("charge"));
            Payment paid = processor.payOnce(execution, REQUEST);
            return StoredResponse.of(201, processor.body(paid));
        });
    }

    @Test
    void aPaymentChargesOnceWithTheDerivedDownstreamKeyAndIsStoredPaid() throws Exception {
        AtomicReference<String> derived = new AtomicReference<>();
        Outcome outcome = pay(processor(false), "key-1", derived);

        assertThat(outcome).isInstanceOf(Outcome.Executed.class);
        assertThat(gateway.keysSent).containsExactly(derived.get());
        assertThat(derived.get()).startsWith("charge-").doesNotContain("key-1");
        String body = new String(((Outcome.Executed) outcome).response().body(), StandardCharsets.UTF_8);
        assertThat(body).matches("\\{\"id\":\"pay_[0-9a-f]{24}\",\"status\":\"paid\",\"chargeId\":\"ch_1\",\"amount\":1250,\"currency\":\"EUR\"}");
        String id = JSON.readTree(body).get("id").asString();
        assertThat(payments.find(id)).hasValue(new Payment(id, "paid", "ch_1", 1250, "EUR"));
    }

    @Test
    void aRetryOfACompletedPaymentReplaysWithoutRunningAgain() {
        AtomicReference<String> derived = new AtomicReference<>();
        Outcome first = pay(processor(false), "key-2", derived);
        Outcome second = pay(processor(false), "key-2", derived);

        assertThat(second).isInstanceOf(Outcome.Replayed.class);
        assertThat(((Outcome.Replayed) second).response().body()).isEqualTo(((Outcome.Executed) first).response().body());
        assertThat(gateway.keysSent).hasSize(1);
        assertThat(paymentRows()).isEqualTo(1);
    }

    @Test
    void aGatewayFailureBeforeChargingResumesWithTheSamePaymentAndGatewayKey() throws Exception {
        gateway.failBeforeCharging = 1;
        AtomicReference<String> derived = new AtomicReference<>();
        assertThatThrownBy(() -> pay(processor(false), "key-3", derived)).isInstanceOfSatisfying(PaymentProblem.class,
                p -> assertThat(p.status()).isEqualTo(502));
        assertThat(paymentRows()).as("the payment row was created by the first attempt").isEqualTo(1);

        Outcome retry = pay(processor(false), "key-3", derived);

        assertThat(retry).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) retry).attempt()).as("the retry took the key over").isEqualTo(2);
        assertThat(gateway.keysSent).containsExactly(derived.get(), derived.get());
        assertThat(gateway.chargeByKey).hasSize(1);
        assertThat(paymentRows()).as("no second payment row").isEqualTo(1);
    }

    @Test
    void aLostGatewayAnswerIsRepeatedWithTheSameKeySoTheCardIsChargedOnce() throws Exception {
        gateway.loseAnswerAfterCharging = 1;
        AtomicReference<String> derived = new AtomicReference<>();
        assertThatThrownBy(() -> pay(processor(false), "key-4", derived)).isInstanceOf(PaymentProblem.class);

        Outcome retry = pay(processor(false), "key-4", derived);

        String body = new String(((Outcome.Executed) retry).response().body(), StandardCharsets.UTF_8);
        assertThat(gateway.keysSent).containsExactly(derived.get(), derived.get());
        assertThat(gateway.chargeByKey).as("one charge at the gateway").containsOnlyKeys(derived.get());
        assertThat(JSON.readTree(body).get("chargeId").asString()).isEqualTo("ch_1");
    }

    @Test
    void deliberatelyBrokenFreshGatewayKeysChargeAgainWhenTheAnswerWasLost() {
        gateway.loseAnswerAfterCharging = 1;
        AtomicReference<String> derived = new AtomicReference<>();
        assertThatThrownBy(() -> pay(processor(true), "key-5", derived)).isInstanceOf(PaymentProblem.class);

        pay(processor(true), "key-5", derived);

        assertThat(gateway.keysSent).hasSize(2).doesNotContain(derived.get()).doesNotHaveDuplicates();
        assertThat(gateway.chargeByKey).as("the memory-store variant's second charge").hasSize(2);
    }

    @Test
    void withoutAKeyEveryRequestIsANewPaymentAndANewCharge() {
        PaymentProcessor processor = processor(false);
        Payment first = processor.payWithoutKey(REQUEST);
        Payment second = processor.payWithoutKey(REQUEST);

        assertThat(first.id()).isNotEqualTo(second.id());
        assertThat(gateway.chargeByKey).hasSize(2);
        assertThat(paymentRows()).isEqualTo(2);
        assertThat(payments.find(first.id()).orElseThrow().status()).isEqualTo("paid");
    }

    @Test
    void creatingAPaymentTwiceUnderOneRequestKeyFindsTheFirstRow() {
        String first = payments.createPending("request-key", REQUEST);
        String again = payments.createPending("request-key", new PaymentRequest(1, "USD", "other"));
        assertThat(again).isEqualTo(first);
        assertThat(payments.find(first).orElseThrow()).isEqualTo(new Payment(first, "pending", null, 1250, "EUR"));
    }

    private int paymentRows() {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM payment")) {
            rs.next();
            return rs.getInt(1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
