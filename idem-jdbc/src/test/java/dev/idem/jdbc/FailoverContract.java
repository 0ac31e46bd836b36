package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store in front of a replicated database whose primary is killed (SIGKILL) while executions are
 * in flight and whose standby is then promoted: the store follows the new primary without a restart
 * (one multi-host URL), answers only retryable {@link StoreException}s during the switch, and, with
 * synchronous replication, forgets nothing it acknowledged; with asynchronous replication and a
 * lagging standby, the loss is there to count. Each backend's subclass supplies the pair.
 */
abstract class FailoverContract {
    private static final Scope SCOPE = Scope.of("alice", "POST /payments");
    private static final Fingerprint FINGERPRINT = Fingerprint.builder().part("body", "{\"amount\":100}").build();
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration ANSWER_DEADLINE = Duration.ofSeconds(30);
    private static final int BEFORE_KILL = 40;
    private static final int WRITERS = 6;

    /** A primary and a standby of the backend under test, replicating as asked. */
    interface Pair extends AutoCloseable {
        /** One JDBC URL naming both servers that connects to whichever is the primary. */
        String failoverUrl();

        /** The standby alone, with the credentials {@link #failoverUrl()} uses. */
        String standbyUrl();

        void awaitStandbyCaughtUp();

        /** The standby stops following: what the primary commits from now on stays on the primary only. */
        void pauseStandby();

        /** How far the standby is behind, in {@link #lagUnit()}. */
        long lag();

        String lagUnit();

        void killPrimary();

        void promoteStandby();

        @Override
        void close();
    }

    protected abstract String backend();

    /** Starts a pair with semi-/synchronous ({@code synchronous}) or asynchronous replication. */
    protected abstract Pair start(boolean synchronous);

    /** Runs of the payment's "charge" phase per key: more than one after its checkpoint was acknowledged is a second charge. */
    private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();
    /** The charges a key had when its checkpoint was acknowledged (the operation went on past the phase). */
    private final Map<String, Integer> chargesAtCheckpoint = new ConcurrentHashMap<>();

    @Test
    void synchronousReplicationLosesNothingAcknowledgedAcrossAKillAndPromotionAndFencingHolds() throws Exception {
        try (Pair pair = start(true); HikariDataSource pool = pool(pair.failoverUrl())) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).durabilityCheck(DurabilityCheck.REQUIRE_SYNCHRONOUS_REPLICATION).build();
            store.migrate();
            Idem idem = Idem.builder().store(store).lease(LEASE).retention(Duration.ofHours(1)).build();
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < BEFORE_KILL; i++) {
                assertThat(execute(idem, "before-" + i)).isInstanceOf(Outcome.Executed.class);
                acknowledged.add("before-" + i);
            }
            // An owner whose lease spans the failover (long enough to outlast the switch): fencing is checked on it afterwards.
            RecordKey held = new RecordKey(SCOPE, IdempotencyKey.of("held-across-failover"));
            ClaimOutcome.Acquired oldOwner = (ClaimOutcome.Acquired) store.claim(new ClaimRequest(held, FINGERPRINT,
                    Duration.ofSeconds(60), Duration.ofHours(1)));

            assertStandbyRefusesWritesBeforeItsPromotion(pair);

            AtomicBoolean promoted = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            Set<String> failed = ConcurrentHashMap.newKeySet();
            AtomicInteger afterPromotion = new AtomicInteger();
            ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                running.add(writers.submit(() -> {
                    for (int n = 0; !stop.get(); n++) {
                        String key = "flight-" + writer + "-" + n;
                        boolean sentAfterPromotion = promoted.get();
                        try {
                            if (execute(idem, key) instanceof Outcome.Executed) {
                                acknowledged.add(key);
                                if (sentAfterPromotion) {
                                    afterPromotion.incrementAndGet();
                                }
                            }
                        } catch (RuntimeException e) {
                            errors.add(e);
                            failed.add(key);
                            sleep(20);
                        }
                    }
                }));
            }
            awaitAtLeast(acknowledged, BEFORE_KILL + 3 * WRITERS);
            long killedAt = System.nanoTime();
            pair.killPrimary();
            pair.promoteStandby();
            promoted.set(true);
            long deadline = System.nanoTime() + ANSWER_DEADLINE.toNanos();
            while (afterPromotion.get() < 2 * WRITERS && System.nanoTime() < deadline) {
                sleep(20);
            }
            long switchMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            stop.set(true);
            for (Future<?> f : running) {
                f.get(ANSWER_DEADLINE.toSeconds(), TimeUnit.SECONDS);
            }
            writers.shutdown();

            assertThat(afterPromotion.get()).as("executions acknowledged by the new primary, through the same pool").isGreaterThanOrEqualTo(2 * WRITERS);
            assertThat(errors).as("what callers saw during the switch").allSatisfy(e -> assertThat(e).isInstanceOf(StoreException.class));
            int lost = 0;
            for (String key : acknowledged) {
                if (!(answered(idem, key) instanceof Outcome.Replayed)) {
                    lost++;
                }
            }
            for (String key : failed) {
                assertThat(answered(idem, key)).as("a retry of %s, interrupted by the kill", key).isNotNull();
            }
            int twice = chargedAgainAfterCheckpoint();
            System.out.printf("%s synchronous failover: %d executions acknowledged (%d before the kill), %d interrupted (each a"
                    + " StoreException), kill to %d acknowledged on the new primary in %d ms; acknowledged lost %d, effects run twice %d%n",
                    backend(), acknowledged.size(), BEFORE_KILL, failed.size(), afterPromotion.get(), switchMillis, lost, twice);
            assertThat(lost).as("acknowledged executions lost").isZero();
            assertThat(twice).as("effects run twice").isZero();

            assertFencingHeldAcrossTheFailover(store, held, oldOwner);
        }
    }

    @Test
    void asynchronousReplicationWithALaggingStandbyLosesWhatItAcknowledgedMeanwhile() {
        try (Pair pair = start(false); HikariDataSource pool = pool(pair.failoverUrl())) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).build();
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(pool).durabilityCheck(DurabilityCheck.REQUIRE_SYNCHRONOUS_REPLICATION).build())
                    .as("what the start-up check says about this pair").isInstanceOf(IllegalStateException.class);
            store.migrate();
            Idem idem = Idem.builder().store(store).lease(LEASE).retention(Duration.ofHours(1)).build();
            List<String> replicated = new ArrayList<>();
            for (int i = 0; i < BEFORE_KILL; i++) {
                assertThat(execute(idem, "replicated-" + i)).isInstanceOf(Outcome.Executed.class);
                replicated.add("replicated-" + i);
            }
            pair.awaitStandbyCaughtUp();
            pair.pauseStandby();
            List<String> lagging = new ArrayList<>();
            for (int i = 0; i < BEFORE_KILL; i++) {
                assertThat(execute(idem, "lagging-" + i)).isInstanceOf(Outcome.Executed.class);
                lagging.add("lagging-" + i);
            }
            long lag = pair.lag();
            pair.killPrimary();
            pair.promoteStandby();

            int lost = 0;
            for (String key : replicated) {
                assertThat(answered(idem, key)).as("%s, replicated before the standby fell behind", key).isInstanceOf(Outcome.Replayed.class);
            }
            for (String key : lagging) {
                if (answered(idem, key) instanceof Outcome.Executed) {
                    lost++;
                }
            }
            int twice = chargedAgainAfterCheckpoint();
            System.out.printf("%s asynchronous failover with the standby %d %s behind at the kill: %d executions acknowledged,"
                    + " acknowledged lost %d, effects run twice %d%n", backend(), lag, pair.lagUnit(), replicated.size() + lagging.size(), lost, twice);
            assertThat(lag).as("the standby's lag at the kill").isPositive();
            assertThat(lost).as("acknowledged executions lost: every one acknowledged after the standby fell behind").isEqualTo(lagging.size());
            assertThat(twice).as("effects run twice: each lost one charged again on its retry").isEqualTo(lagging.size());
        }
    }

    /**
     * A connection the failover URL opens on the standby while the old primary is dying must not
     * write there: a write beside a relay log the standby has not applied yet would find a claim
     * missing and lose or repeat it. (MariaDB's {@code read_only} does not hold a user with
     * {@code READ ONLY ADMIN}, root included.)
     */
    private static void assertStandbyRefusesWritesBeforeItsPromotion(Pair pair) throws SQLException {
        try (Connection standby = DriverManager.getConnection(pair.standbyUrl()); Statement st = standby.createStatement()) {
            assertThatThrownBy(() -> st.execute("CREATE TABLE idem_standby_probe (id INT)"))
                    .as("a write on the standby before its promotion").isInstanceOf(SQLException.class);
        }
    }

    /**
     * The owner that claimed before the failover still holds its lease on the new primary (by that
     * server's clock); a contender takes over only once the lease is over, with a larger fencing
     * token; the old owner's late write is refused and the record is the new owner's.
     */
    private void assertFencingHeldAcrossTheFailover(JdbcIdempotencyStore store, RecordKey held, ClaimOutcome.Acquired oldOwner) {
        ClaimRequest contender = new ClaimRequest(held, FINGERPRINT, Duration.ofSeconds(30), Duration.ofHours(1));
        assertThat(store.claim(contender)).as("the lease claimed on the old primary, on the new one").isInstanceOf(ClaimOutcome.InProgress.class);
        // The old owner renews for a short lease on the new primary: its token is still the record's.
        long renewSentAt = System.currentTimeMillis();
        store.renew(held, oldOwner.token(), Duration.ofSeconds(1));
        ClaimOutcome taken;
        while (!((taken = store.claim(contender)) instanceof ClaimOutcome.Acquired)) {
            assertThat(taken).isInstanceOf(ClaimOutcome.InProgress.class);
            sleep(20);
        }
        long acquiredAt = System.currentTimeMillis();
        assertThat(acquiredAt - renewSentAt).as("ms from the old owner's renewal to the takeover: never within its lease").isGreaterThanOrEqualTo(1000);
        ClaimOutcome.Acquired newOwner = (ClaimOutcome.Acquired) taken;
        assertThat(newOwner.token()).as("fencing token after the takeover").isGreaterThan(oldOwner.token());
        StoredResponse late = StoredResponse.of(201, "old owner".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> store.complete(held, oldOwner.token(), late, Duration.ofHours(1))).isInstanceOf(LeaseLostException.class);
        IdempotencyRecord record = store.find(held).orElseThrow();
        assertThat(record.token()).isEqualTo(newOwner.token());
    }

    /** One execution: the charge in a phase, then the response. */
    private Outcome execute(Idem idem, String key) {
        return idem.execute(SCOPE, IdempotencyKey.of(key), FINGERPRINT, execution -> {
            String charge = execution.phase("charge", downstreamKey -> {
                charges.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                return "ch_" + key;
            });
            chargesAtCheckpoint.putIfAbsent(key, charges.get(key).get());
            return StoredResponse.of(201, charge.getBytes(StandardCharsets.UTF_8));
        });
    }

    /** The key's final answer, retried through StoreExceptions and in-progress answers (a dead owner's lease running out). */
    private Outcome answered(Idem idem, String key) {
        long deadline = System.nanoTime() + ANSWER_DEADLINE.toNanos();
        while (true) {
            try {
                Outcome outcome = execute(idem, key);
                if (!(outcome instanceof Outcome.InProgress)) {
                    return outcome;
                }
            } catch (StoreException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            assertThat(System.nanoTime()).as("%s answered within %s", key, ANSWER_DEADLINE).isLessThan(deadline);
            sleep(50);
        }
    }

    private int chargedAgainAfterCheckpoint() {
        int twice = 0;
        for (Map.Entry<String, Integer> checkpointed : chargesAtCheckpoint.entrySet()) {
            if (charges.get(checkpointed.getKey()).get() > checkpointed.getValue()) {
                twice++;
            }
        }
        return twice;
    }

    private static void awaitAtLeast(Set<String> keys, int count) {
        long deadline = System.nanoTime() + ANSWER_DEADLINE.toNanos();
        while (keys.size() < count) {
            assertThat(System.nanoTime()).as("%d executions acknowledged within %s", count, ANSWER_DEADLINE).isLessThan(deadline);
            sleep(5);
        }
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(WRITERS + 4);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(2000);
        config.setValidationTimeout(1000);
        config.setPoolName("idem-failover");
        return new HikariDataSource(config);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
