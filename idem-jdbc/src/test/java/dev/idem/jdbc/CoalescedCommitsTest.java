package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.Backends;
import dev.idem.jdbc.testing.CountingDataSource;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Coalesced commits on the real databases: concurrent claims (and completions) on distinct keys share
 * commits, each caller still gets its own outcome, duplicates and fenced writes inside a burst are
 * answered as if run one after the other, and one caller's bad row does not fail the others.
 *
 * <p>A batch is made to form deterministically: a lead caller's connection is held until the eight
 * callers under test are queued behind it (the store reports how many wait), so they go as one batch.
 */
class CoalescedCommitsTest {
    private static final Scope SCOPE = Scope.of("alice", "POST /orders");
    private static final Fingerprint FP = Fingerprint.builder().part("body", "{\"amount\":1}").build();
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final int CALLERS = 8;

    private TestDatabase db;
    private CountingDataSource counting;
    private JdbcIdempotencyStore store;
    private final ExecutorService pool = Executors.newFixedThreadPool(CALLERS + 1);

    private void open(Backends backend) {
        db = backend.open();
        counting = new CountingDataSource(db.dataSource());
        store = JdbcIdempotencyStore.builder(counting).coalesceCommits(true).build();
        store.migrate();
        assertThat(store.coalescesCommits()).isTrue();
    }

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        if (db != null) {
            db.close();
        }
    }

    private static RecordKey id(String key) {
        return new RecordKey(SCOPE, IdempotencyKey.of(key));
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(id(key), FP, LEASE, RETENTION);
    }

    private static StoredResponse response(int n) {
        return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                ("{\"order\":" + n + "}").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Runs {@code lead} and, while its connection is held, {@code CALLERS} calls that queue behind it;
     * once all are queued the lead goes on, and the queue goes to the database as the next batch.
     * Returns each call's result or failure, in call order; {@link CountingDataSource#commits()} then
     * counts the lead's commit and the batch's.
     */
    private List<Object> burst(Callable<?> lead, IntFunction<Callable<Object>> call) throws Exception {
        counting.reset();
        CountDownLatch held = counting.holdNextConnectionUntil(() -> store.waitingForBatch() >= CALLERS);
        Future<?> leader = pool.submit(lead);
        assertThat(held.await(30, TimeUnit.SECONDS)).as("the lead reached the database").isTrue();
        List<Future<Object>> futures = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            Callable<Object> c = call.apply(i);
            futures.add(pool.submit(() -> {
                try {
                    return c.call();
                } catch (RuntimeException e) {
                    return e;
                }
            }));
        }
        List<Object> out = new ArrayList<>();
        for (Future<Object> f : futures) {
            out.add(f.get(60, TimeUnit.SECONDS));
        }
        leader.get(60, TimeUnit.SECONDS);
        assertThat(counting.heldUntilReady()).as("the lead's connection waited until the others were queued").isTrue();
        return out;
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void concurrentClaimsAndCompletionsOnDistinctKeysShareCommits(Backends backend) throws Exception {
        open(backend);
        List<Object> claims = burst(() -> store.claim(request("lead")), i -> () -> store.claim(request("k-" + i)));
        long claimCommits = counting.commits();
        for (int i = 0; i < CALLERS; i++) {
            assertThat(claims.get(i)).as("caller %d", i).isInstanceOf(ClaimOutcome.Acquired.class);
            ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) claims.get(i);
            IdempotencyRecord record = store.find(id("k-" + i)).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(record.token()).as("caller %d got its own record's token", i).isEqualTo(acquired.token());
        }
        // Alone: 8 commits. Coalesced: one for the eight queued behind the lead (and the lead's own).
        assertThat((double) claimCommits / CALLERS).as("commits per claim (%d commits)", claimCommits).isLessThanOrEqualTo(0.75);

        long leadToken = ((ClaimOutcome.Acquired) store.claim(request("lead-2"))).token();
        List<Object> completions = burst(() -> {
            store.complete(id("lead-2"), leadToken, response(-1), RETENTION);
            return null;
        }, i -> () -> {
            store.complete(id("k-" + i), ((ClaimOutcome.Acquired) claims.get(i)).token(), response(i), RETENTION);
            return "done";
        });
        long completeCommits = counting.commits();
        assertThat(completions).containsOnly("done");
        assertThat((double) completeCommits / CALLERS).as("commits per completion (%d commits)", completeCommits)
                .isLessThanOrEqualTo(0.75);
        for (int i = 0; i < CALLERS; i++) {
            assertThat(store.claim(request("k-" + i))).as("caller %d's own response", i).isEqualTo(new ClaimOutcome.Replay(response(i)));
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void aCoalescedClaimBatchIsOneStatementThatCommitsByItself(Backends backend) throws Exception {
        // The batch's claim is one statement: under auto-commit it commits before it answers, so no
        // transaction is opened around it (on MariaDB's driver each auto-commit switch is a round trip
        // on the batch's path, which every queued caller waits for).
        open(backend);
        List<Object> claims = burst(() -> store.claim(request("lead")), i -> () -> store.claim(request("k-" + i)));
        long claimCommits = counting.commits();

        assertThat(claims).allSatisfy(c -> assertThat(c).isInstanceOf(ClaimOutcome.Acquired.class));
        assertThat(counting.autoCommitSwitches()).as("auto-commit switches for the lead and one batch of claims").isZero();
        assertThat((double) claimCommits / CALLERS).as("commits per claim (%d commits)", claimCommits).isLessThanOrEqualTo(0.75);
        for (int i = 0; i < CALLERS; i++) {
            // Committed: a claim from a new pool connection sees each record held by its caller.
            assertThat(store.claim(request("k-" + i))).as("caller %d's claim is durable", i).isInstanceOf(ClaimOutcome.InProgress.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void aDuplicateInsideABurstIsDecidedAsIfRunAfterTheOther(Backends backend) throws Exception {
        open(backend);
        store.complete(id("done"), ((ClaimOutcome.Acquired) store.claim(request("done"))).token(), response(99), RETENTION);
        // Callers 0 and 1 race for one key; 2 replays a completed key; the rest are new keys.
        List<Object> claims = burst(() -> store.claim(request("lead")),
                i -> () -> store.claim(request(i <= 1 ? "twin" : i == 2 ? "done" : "k-" + i)));
        List<Object> twins = claims.subList(0, 2);
        assertThat(twins).filteredOn(o -> o instanceof ClaimOutcome.Acquired).hasSize(1);
        assertThat(twins).filteredOn(o -> o instanceof ClaimOutcome.InProgress).hasSize(1);
        assertThat(claims.get(2)).isEqualTo(new ClaimOutcome.Replay(response(99)));
        for (int i = 3; i < CALLERS; i++) {
            assertThat(claims.get(i)).as("caller %d", i).isInstanceOf(ClaimOutcome.Acquired.class);
        }
        long winner = twins.stream().filter(o -> o instanceof ClaimOutcome.Acquired).map(o -> ((ClaimOutcome.Acquired) o).token())
                .findFirst().orElseThrow();
        assertThat(store.find(id("twin")).orElseThrow().token()).isEqualTo(winner);
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void aFencedCompletionInsideABatchIsReportedFencedOnlyToItsCaller(Backends backend) throws Exception {
        open(backend);
        long[] tokens = new long[CALLERS];
        for (int i = 0; i < CALLERS; i++) {
            tokens[i] = ((ClaimOutcome.Acquired) store.claim(request("k-" + i))).token();
        }
        int fenced = 5;
        long leadToken = ((ClaimOutcome.Acquired) store.claim(request("lead"))).token();
        List<Object> completions = burst(() -> {
            store.complete(id("lead"), leadToken, response(-1), RETENTION);
            return null;
        }, i -> () -> {
            store.complete(id("k-" + i), i == fenced ? tokens[i] + 1_000_000 : tokens[i], response(i), RETENTION);
            return "done";
        });
        assertThat((double) counting.commits() / CALLERS).as("the completions were coalesced").isLessThanOrEqualTo(0.75);
        for (int i = 0; i < CALLERS; i++) {
            if (i == fenced) {
                assertThat(completions.get(i)).isInstanceOf(LeaseLostException.class);
                assertThat(store.find(id("k-" + i)).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
            } else {
                assertThat(completions.get(i)).as("caller %d", i).isEqualTo("done");
                assertThat(store.find(id("k-" + i)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void oneCallersRejectedRowDoesNotFailTheOthers(Backends backend) throws Exception {
        open(backend);
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            for (String sql : poisonTrigger(backend)) {
                st.execute(sql);
            }
        }
        int poisoned = 4;
        List<Object> claims = burst(() -> store.claim(request("lead")),
                i -> () -> store.claim(request(i == poisoned ? "poison" : "k-" + i)));
        for (int i = 0; i < CALLERS; i++) {
            if (i == poisoned) {
                assertThat(claims.get(i)).isInstanceOf(StoreException.class);
                assertThat(store.find(id("poison"))).isEmpty();
            } else {
                assertThat(claims.get(i)).as("caller %d", i).isInstanceOf(ClaimOutcome.Acquired.class);
                assertThat(store.find(id("k-" + i)).orElseThrow().token()).isEqualTo(((ClaimOutcome.Acquired) claims.get(i)).token());
            }
        }
        assertThatThrownBy(() -> store.claim(request("poison"))).isInstanceOf(StoreException.class);
    }

    /** A trigger that makes the database itself refuse the row of key {@code poison}, as it would a bad value. */
    private static List<String> poisonTrigger(Backends backend) {
        return switch (backend) {
            case POSTGRESQL -> List.of(
                    "CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                            + "IF NEW.idem_key = 'poison' THEN RAISE EXCEPTION 'refused row' USING ERRCODE = '22023'; END IF; "
                            + "RETURN NEW; END $$",
                    "CREATE TRIGGER refuse_poison BEFORE INSERT OR UPDATE ON idem_record FOR EACH ROW EXECUTE FUNCTION refuse_poison()");
            case MARIADB -> List.of("CREATE TRIGGER refuse_poison BEFORE INSERT ON idem_record FOR EACH ROW "
                    + "BEGIN IF NEW.idem_key = 'poison' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused row'; END IF; END");
            case SQLITE -> List.of("CREATE TRIGGER refuse_poison BEFORE INSERT ON idem_record FOR EACH ROW "
                    + "WHEN NEW.idem_key = 'poison' BEGIN SELECT RAISE(ABORT, 'refused row'); END");
        };
    }
}
