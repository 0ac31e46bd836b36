package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.internal.ResponseCache;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The optional cache of completed responses: final answers only, per scope, never past expiry. */
class ResponseCacheTest {
    private static final Scope ALICE = Scope.of("alice", "POST /orders");
    private static final Scope BOB = Scope.of("bob", "POST /orders");
    private static final Fingerprint FP = Fingerprint.builder().part("body", "{\"a\":1}").build();
    private static final Fingerprint OTHER = Fingerprint.builder().part("body", "{\"a\":2}").build();
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final StoredResponse RESPONSE = StoredResponse.of(201, "{\"id\":1}".getBytes(StandardCharsets.UTF_8));

    private static ClaimRequest request(Scope scope, String key, Fingerprint fp, Duration lease, Duration retention) {
        return new ClaimRequest(new RecordKey(scope, IdempotencyKey.of(key)), fp, lease, retention);
    }

    private static ClaimRequest request(Scope scope, String key, Fingerprint fp) {
        return request(scope, key, fp, LEASE, RETENTION);
    }

    private static void complete(JdbcIdempotencyStore store, ClaimRequest r, StoredResponse response, Duration retention) {
        ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) store.claim(r);
        store.complete(r.id(), acquired.token(), response, retention);
    }

    private static JdbcIdempotencyStore cachedStore(TestDatabase db, int entries) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).responseCache(entries).build();
        store.migrate();
        return store;
    }

    private static void deleteRows(TestDatabase db) throws Exception {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement("DELETE FROM idem_record")) {
            ps.executeUpdate();
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void aReplayedResponseIsAnsweredFromTheCacheAfterwards(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = cachedStore(db, 100);
            complete(store, request(ALICE, "k", FP), RESPONSE, RETENTION);
            assertThat(store.claim(request(ALICE, "k", FP))).isEqualTo(new ClaimOutcome.Replay(RESPONSE));

            // Gone from the database (only a hand-made delete can do that before expiry): the cache still answers.
            deleteRows(db);
            assertThat(store.claim(request(ALICE, "k", FP))).isEqualTo(new ClaimOutcome.Replay(RESPONSE));
            assertThat(store.claim(request(ALICE, "k", OTHER))).isInstanceOf(ClaimOutcome.Mismatch.class);
            // Another principal's claim of the same key never sees it.
            assertThat(store.claim(request(BOB, "k", FP))).isInstanceOf(ClaimOutcome.Acquired.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void firstExecutionsAndKeysInProgressAlwaysGoToTheDatabase(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = cachedStore(db, 100);
            ClaimRequest r = request(ALICE, "k", FP);
            ClaimOutcome.Acquired first = (ClaimOutcome.Acquired) store.claim(r);
            assertThat(store.claim(r)).isInstanceOf(ClaimOutcome.InProgress.class);
            store.release(r.id(), first.token());
            ClaimOutcome.Acquired second = (ClaimOutcome.Acquired) store.claim(r);
            assertThat(second.token()).isGreaterThan(first.token());
            store.complete(r.id(), second.token(), RESPONSE, RETENTION);
            assertThat(store.claim(r)).isEqualTo(new ClaimOutcome.Replay(RESPONSE));
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void anEntryNeverOutlivesTheRecord(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = cachedStore(db, 100);
            Duration shortLife = Duration.ofMillis(1500);
            ClaimRequest r = request(ALICE, "k", FP, Duration.ofMillis(500), shortLife);
            complete(store, r, RESPONSE, shortLife);
            assertThat(store.claim(r)).isEqualTo(new ClaimOutcome.Replay(RESPONSE));
            Thread.sleep(shortLife.toMillis() + 100);
            // Expired on the database's clock: a new execution, not a replay from the cache.
            assertThat(store.claim(r)).isInstanceOf(ClaimOutcome.Acquired.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void theTransactionalModeNeitherReadsNorFillsTheCache(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = cachedStore(db, 100);
            TransactionalIdem tx = TransactionalIdem.of(Idem.builder().store(store).build());
            IdempotencyKey key = IdempotencyKey.of("k");
            assertThat(tx.execute(ALICE, key, FP, c -> RESPONSE)).isInstanceOf(Outcome.Executed.class);
            assertThat(tx.execute(ALICE, key, FP, c -> RESPONSE)).isInstanceOf(Outcome.Replayed.class);
            deleteRows(db);
            assertThat(tx.execute(ALICE, key, FP, c -> RESPONSE)).isInstanceOf(Outcome.Executed.class);
        }
    }

    @Test
    void theCacheIsBoundedAndSkipsLargeBodies() {
        ResponseCache cache = new ResponseCache(2);
        long now = System.nanoTime();
        for (String k : new String[] {"a", "b", "c"}) {
            cache.put(new RecordKey(ALICE, IdempotencyKey.of(k)), FP.value(), RESPONSE, now, 60_000);
        }
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.answer(new RecordKey(ALICE, IdempotencyKey.of("a")), FP)).isNull();
        assertThat(cache.answer(new RecordKey(ALICE, IdempotencyKey.of("c")), FP)).isEqualTo(new ClaimOutcome.Replay(RESPONSE));
        StoredResponse large = StoredResponse.of(200, new byte[ResponseCache.MAX_BODY_BYTES + 1]);
        cache.put(new RecordKey(ALICE, IdempotencyKey.of("big")), FP.value(), large, now, 60_000);
        assertThat(cache.answer(new RecordKey(ALICE, IdempotencyKey.of("big")), FP)).isNull();
    }

    @Test
    void anEntryIsDroppedAtItsDeadline() throws Exception {
        ResponseCache cache = new ResponseCache(10);
        RecordKey id = new RecordKey(ALICE, IdempotencyKey.of("k"));
        cache.put(id, FP.value(), RESPONSE, System.nanoTime(), 100);
        assertThat(cache.answer(id, FP)).isNotNull();
        Thread.sleep(150);
        assertThat(cache.answer(id, FP)).isNull();
        assertThat(cache.size()).isZero();
        cache.put(id, FP.value(), RESPONSE, System.nanoTime(), 0);
        assertThat(cache.answer(id, FP)).as("no life left: not cached").isNull();
    }

    @Test
    void theBuilderValidatesTheSize() {
        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(new org.sqlite.SQLiteDataSource()).responseCache(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }
}
