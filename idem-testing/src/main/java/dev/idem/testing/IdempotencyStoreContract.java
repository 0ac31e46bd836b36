package dev.idem.testing;

import dev.idem.testing.Concurrently;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@link IdempotencyStore} contract, as tests. A backend's test is a subclass that says how to
 * make a fresh, empty store on a real server; every test here must pass unchanged.
 *
 * <p>Lease expiry is real time: leases of a few hundred milliseconds and sleeps a little longer.
 */
public abstract class IdempotencyStoreContract extends StoreFixture {
    protected static final Duration LONG = Duration.ofMinutes(10);
    protected static final Duration SHORT_LEASE = Duration.ofMillis(300);
    protected static final Duration PAST_SHORT_LEASE = Duration.ofMillis(450);

    private final Scope scope = Scope.of("principal-" + UUID.randomUUID(), "POST /contract");

    // ---- helpers ------------------------------------------------------------------------------

    protected RecordKey id(String key) {
        return new RecordKey(scope, IdempotencyKey.of(key));
    }

    protected static Fingerprint fingerprint(String body) {
        return Fingerprint.builder().part("body", body).build();
    }

    protected ClaimOutcome claim(RecordKey id, Fingerprint fp, Duration lease) {
        return store.claim(new ClaimRequest(id, fp, lease, LONG.compareTo(lease) >= 0 ? LONG : lease));
    }

    protected ClaimOutcome claim(RecordKey id) {
        return claim(id, fingerprint("a"), LONG);
    }

    protected ClaimOutcome.Acquired acquire(RecordKey id, Fingerprint fp, Duration lease) {
        ClaimOutcome outcome = claim(id, fp, lease);
        assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
        return (ClaimOutcome.Acquired) outcome;
    }

    protected ClaimOutcome.Acquired acquire(RecordKey id) {
        return acquire(id, fingerprint("a"), LONG);
    }

    protected static StoredResponse response(int status, String body) {
        return StoredResponse.of(status, Map.of("Content-Type", List.of("text/plain")), body.getBytes(StandardCharsets.UTF_8));
    }

    protected static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    protected static <T> List<T> concurrently(int threads, Callable<T> task) throws Exception {
        return Concurrently.call(threads, task);
    }

    // ---- claim --------------------------------------------------------------------------------

    @Test
    @DisplayName("a fresh key is acquired at attempt 1 with no recovery point")
    void freshKeyIsAcquired() {
        ClaimOutcome.Acquired acquired = acquire(id("fresh"));
        assertThat(acquired.attempt()).isEqualTo(1);
        assertThat(acquired.takeover()).isFalse();
        assertThat(acquired.recoveryPoint()).isEmpty();
        IdempotencyRecord record = store.find(id("fresh")).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.token()).isEqualTo(acquired.token());
    }

    @Test
    @DisplayName("of 32 threads claiming one key at once, exactly one acquires; the rest see it in progress")
    void exactlyOneOfManyConcurrentClaimsAcquires() throws Exception {
        RecordKey id = id("race");
        List<ClaimOutcome> outcomes = concurrently(32, () -> claim(id));
        assertThat(outcomes).filteredOn(o -> o instanceof ClaimOutcome.Acquired).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o instanceof ClaimOutcome.InProgress).hasSize(31)
                .allSatisfy(o -> assertThat(((ClaimOutcome.InProgress) o).retryAfter()).isPositive().isLessThanOrEqualTo(LONG));
    }

    @Test
    @DisplayName("32 threads racing an owner that completes see exactly one acquisition, then in-progress or the replay")
    void racersSeeInProgressOrReplay() throws Exception {
        RecordKey id = id("race-complete");
        StoredResponse answer = response(201, "done");
        List<ClaimOutcome> outcomes = concurrently(32, () -> {
            List<ClaimOutcome> seen = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ClaimOutcome outcome = claim(id);
                seen.add(outcome);
                if (outcome instanceof ClaimOutcome.Acquired acquired) {
                    store.complete(id, acquired.token(), answer, LONG);
                }
            }
            return seen;
        }).stream().flatMap(List::stream).toList();
        assertThat(outcomes).filteredOn(o -> o instanceof ClaimOutcome.Acquired).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o instanceof ClaimOutcome.Mismatch).isEmpty();
        assertThat(outcomes).filteredOn(o -> o instanceof ClaimOutcome.Replay)
                .isNotEmpty()
                .allSatisfy(o -> assertThat(((ClaimOutcome.Replay) o).response()).isEqualTo(answer));
    }

    // ---- replay -------------------------------------------------------------------------------

    @Test
    @DisplayName("a replay returns status, headers in order and a binary body byte for byte")
    void replayIsByteForByte() {
        byte[] body = new byte[256 * 4];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i;
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Content-Type", List.of("application/octet-stream"));
        headers.put("X-Multi", List.of("one", "two", "three"));
        headers.put("Location", List.of("/payments/42?x=é"));
        StoredResponse stored = StoredResponse.of(201, headers, body);

        assertReplays("binary", stored);
    }

    @Test
    @DisplayName("an empty body replays as empty")
    void emptyBodyReplays() {
        assertReplays("empty", StoredResponse.of(204, Map.of(), new byte[0]));
    }

    @Test
    @DisplayName("a body over 1 MiB replays byte for byte")
    void largeBodyReplays() {
        byte[] body = new byte[1024 * 1024 + 17];
        new Random(7).nextBytes(body);
        assertReplays("large", StoredResponse.of(200, Map.of("Content-Type", List.of("application/octet-stream")), body));
    }

    private void assertReplays(String key, StoredResponse stored) {
        ClaimOutcome.Acquired acquired = acquire(id(key));
        store.complete(id(key), acquired.token(), stored, LONG);
        ClaimOutcome again = claim(id(key));
        assertThat(again).isInstanceOf(ClaimOutcome.Replay.class);
        StoredResponse replayed = ((ClaimOutcome.Replay) again).response();
        assertThat(replayed.status()).isEqualTo(stored.status());
        assertThat(replayed.headers()).isEqualTo(stored.headers());
        assertThat(List.copyOf(replayed.headers().keySet())).containsExactlyElementsOf(stored.headers().keySet());
        assertThat(replayed.body()).isEqualTo(stored.body());
        assertThat(store.find(id(key)).orElseThrow().response()).contains(stored);
    }

    // ---- fingerprints -------------------------------------------------------------------------

    @Test
    @DisplayName("another fingerprint is a mismatch, in progress or completed, and changes nothing")
    void fingerprintMismatch() {
        RecordKey id = id("mismatch");
        ClaimOutcome.Acquired acquired = acquire(id, fingerprint("a"), LONG);
        IdempotencyRecord before = store.find(id).orElseThrow();
        assertThat(claim(id, fingerprint("b"), LONG)).isInstanceOf(ClaimOutcome.Mismatch.class);
        assertThat(store.find(id).orElseThrow()).isEqualTo(before);

        store.complete(id, acquired.token(), response(200, "a"), LONG);
        IdempotencyRecord completed = store.find(id).orElseThrow();
        assertThat(claim(id, fingerprint("b"), LONG)).isInstanceOf(ClaimOutcome.Mismatch.class);
        assertThat(store.find(id).orElseThrow()).isEqualTo(completed);
        assertThat(claim(id, fingerprint("a"), LONG)).isInstanceOf(ClaimOutcome.Replay.class);
    }

    @Test
    @DisplayName("an expired lease is not taken over by a claim with another fingerprint")
    void takeoverNeedsSameFingerprint() {
        RecordKey id = id("takeover-mismatch");
        acquire(id, fingerprint("a"), SHORT_LEASE);
        sleep(PAST_SHORT_LEASE);
        assertThat(claim(id, fingerprint("b"), LONG)).isInstanceOf(ClaimOutcome.Mismatch.class);
        assertThat(claim(id, fingerprint("a"), LONG)).isInstanceOf(ClaimOutcome.Acquired.class);
    }

    // ---- release ------------------------------------------------------------------------------

    @Test
    @DisplayName("after release the key is absent and the next claim acquires it afresh with a larger token")
    void releaseThenReacquire() {
        RecordKey id = id("release");
        ClaimOutcome.Acquired first = acquire(id);
        store.release(id, first.token());
        assertThat(store.find(id)).isEmpty();

        ClaimOutcome.Acquired second = acquire(id, fingerprint("other body is fine after release"), LONG);
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.attempt()).isEqualTo(1);
        assertThat(second.recoveryPoint()).isEmpty();
        assertThatThrownBy(() -> store.release(id, first.token())).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store.complete(id, first.token(), response(200, "stale"), LONG)).isInstanceOf(LeaseLostException.class);
        assertThat(store.find(id).orElseThrow().token()).isEqualTo(second.token());
    }

    // ---- leases, takeover, fencing ------------------------------------------------------------

    @Test
    @DisplayName("a live lease is not taken over; the answer says how long it has left")
    void liveLeaseIsInProgress() {
        RecordKey id = id("live");
        acquire(id, fingerprint("a"), Duration.ofSeconds(20));
        ClaimOutcome outcome = claim(id);
        assertThat(outcome).isInstanceOf(ClaimOutcome.InProgress.class);
        assertThat(((ClaimOutcome.InProgress) outcome).retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
    }

    @Test
    @DisplayName("after the lease runs out a new claimer takes over with a larger token and the stored recovery point")
    void takeoverAfterLeaseExpiry() {
        RecordKey id = id("takeover");
        ClaimOutcome.Acquired first = acquire(id, fingerprint("a"), SHORT_LEASE);
        RecoveryPoint point = RecoveryPoint.of("charge", new byte[] {1, 2, 3, 0, -1});
        store.checkpoint(id, first.token(), point);
        sleep(PAST_SHORT_LEASE);

        ClaimOutcome.Acquired second = acquire(id, fingerprint("a"), LONG);
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.takeover()).isTrue();
        assertThat(second.recoveryPoint()).contains(point);
    }

    @Test
    @DisplayName("after a takeover every write of the old owner is rejected and changes nothing")
    void staleOwnerIsFencedOff() {
        RecordKey id = id("zombie");
        ClaimOutcome.Acquired zombie = acquire(id, fingerprint("a"), SHORT_LEASE);
        store.checkpoint(id, zombie.token(), RecoveryPoint.of("one", new byte[] {1}));
        sleep(PAST_SHORT_LEASE);
        ClaimOutcome.Acquired owner = acquire(id, fingerprint("a"), LONG);
        store.checkpoint(id, owner.token(), RecoveryPoint.of("two", new byte[] {2}));
        IdempotencyRecord before = store.find(id).orElseThrow();

        assertThatThrownBy(() -> store.checkpoint(id, zombie.token(), RecoveryPoint.of("late", new byte[] {9})))
                .isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store.complete(id, zombie.token(), response(200, "zombie"), LONG))
                .isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store.release(id, zombie.token())).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store.renew(id, zombie.token(), LONG)).isInstanceOf(LeaseLostException.class);
        assertThat(store.find(id).orElseThrow()).isEqualTo(before);

        store.complete(id, owner.token(), response(200, "owner"), LONG);
        assertThat(((ClaimOutcome.Replay) claim(id)).response()).isEqualTo(response(200, "owner"));
    }

    @Test
    @DisplayName("an owner whose lease ran out may still complete while nobody took over")
    void lateCompletionWithoutTakeoverStands() {
        RecordKey id = id("late-owner");
        ClaimOutcome.Acquired owner = acquire(id, fingerprint("a"), SHORT_LEASE);
        sleep(PAST_SHORT_LEASE);
        store.complete(id, owner.token(), response(200, "late"), LONG);
        assertThat(claim(id)).isEqualTo(new ClaimOutcome.Replay(response(200, "late")));
    }

    @Test
    @DisplayName("renew extends the lease past its first end")
    void renewExtendsLease() {
        RecordKey id = id("renew");
        ClaimOutcome.Acquired owner = acquire(id, fingerprint("a"), SHORT_LEASE);
        store.renew(id, owner.token(), Duration.ofSeconds(30));
        sleep(PAST_SHORT_LEASE);
        assertThat(claim(id)).isInstanceOf(ClaimOutcome.InProgress.class);
    }

    @Test
    @DisplayName("renew with a zero lease hands the record and its recovery point to the next claimer at once")
    void renewZeroYields() {
        RecordKey id = id("yield");
        ClaimOutcome.Acquired owner = acquire(id);
        RecoveryPoint point = RecoveryPoint.of("reserved", new byte[] {4});
        store.checkpoint(id, owner.token(), point);
        store.renew(id, owner.token(), Duration.ZERO);
        ClaimOutcome.Acquired next = acquire(id);
        assertThat(next.attempt()).isEqualTo(2);
        assertThat(next.recoveryPoint()).contains(point);
    }

    @Test
    @DisplayName("a checkpoint replaces the previous recovery point")
    void checkpointReplaces() {
        RecordKey id = id("checkpoints");
        ClaimOutcome.Acquired owner = acquire(id);
        store.checkpoint(id, owner.token(), RecoveryPoint.of("one", new byte[] {1}));
        store.checkpoint(id, owner.token(), RecoveryPoint.of("two", new byte[0]));
        assertThat(store.find(id).orElseThrow().recoveryPoint()).contains(RecoveryPoint.of("two", new byte[0]));
    }

    @Test
    @DisplayName("a completed record accepts no further write from its owner")
    void completedIsFinal() {
        RecordKey id = id("final");
        ClaimOutcome.Acquired owner = acquire(id);
        store.complete(id, owner.token(), response(200, "first"), LONG);
        assertThatThrownBy(() -> store.complete(id, owner.token(), response(200, "second"), LONG)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store.release(id, owner.token())).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store.checkpoint(id, owner.token(), RecoveryPoint.of("x", new byte[0]))).isInstanceOf(LeaseLostException.class);
        assertThat(claim(id)).isEqualTo(new ClaimOutcome.Replay(response(200, "first")));
    }

    @Test
    @DisplayName("writes to a key that was never claimed are rejected")
    void writesToAbsentRecordRejected() {
        RecordKey id = id("never");
        assertThatThrownBy(() -> store.complete(id, 1, response(200, "x"), LONG)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store.renew(id, 1, LONG)).isInstanceOf(LeaseLostException.class);
        assertThat(store.find(id)).isEmpty();
    }

    // ---- expiry and purge ---------------------------------------------------------------------

    @Test
    @DisplayName("an expired record behaves as absent: find is empty and a claim starts afresh, any fingerprint")
    void expiredRecordIsAbsent() {
        RecordKey id = id("expired");
        ClaimOutcome.Acquired first = acquire(id);
        store.complete(id, first.token(), response(200, "old"), Duration.ofMillis(1));
        sleep(Duration.ofMillis(30));
        assertThat(store.find(id)).isEmpty();
        ClaimOutcome.Acquired again = acquire(id, fingerprint("new request"), LONG);
        assertThat(again.attempt()).isEqualTo(1);
        assertThat(again.token()).isGreaterThan(first.token());
        assertThat(again.recoveryPoint()).isEmpty();
    }

    @Test
    @DisplayName("purge removes only expired records, at most the limit per call")
    void purgeRemovesOnlyExpiredInBatches() {
        for (int i = 0; i < 25; i++) {
            RecordKey id = id("old-" + i);
            store.complete(id, acquire(id).token(), response(200, "old"), Duration.ofMillis(1));
        }
        List<RecordKey> live = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RecordKey id = id("kept-" + i);
            store.complete(id, acquire(id).token(), response(200, "kept"), LONG);
            live.add(id);
        }
        RecordKey running = id("running");
        acquire(running);
        live.add(running);
        sleep(Duration.ofMillis(30));

        assertThat(store.purge(10)).isEqualTo(10);
        assertThat(store.purge(10)).isEqualTo(10);
        assertThat(store.purge(10)).isEqualTo(5);
        assertThat(store.purge(10)).isZero();
        assertThat(live).allSatisfy(id -> assertThat(store.find(id)).isPresent());
        assertThat(claim(live.get(0))).isInstanceOf(ClaimOutcome.Replay.class);
    }

    @Test
    @DisplayName("a record a pass of full batches passed over (past its retention, its lease live) is purged by a later pass once the lease ends")
    void recordPassedOverIsPurgedByALaterPass() {
        RecordKey straggler = id("straggler");
        Duration lease = Duration.ofMillis(1500);
        ClaimOutcome.Acquired owner = (ClaimOutcome.Acquired) store.claim(new ClaimRequest(straggler, fingerprint("a"), SHORT_LEASE, SHORT_LEASE));
        long leaseEnds = System.nanoTime() + lease.toNanos();
        store.renew(straggler, owner.token(), lease);
        sleep(PAST_SHORT_LEASE);
        for (int i = 0; i < 4; i++) {
            RecordKey id = id("later-" + i);
            store.complete(id, acquire(id).token(), response(200, "old"), Duration.ofMillis(1));
        }
        sleep(Duration.ofMillis(30));

        assertThat(store.purge(2)).as("first full batch, the straggler passed over").isEqualTo(2);
        assertThat(store.purge(2)).as("second full batch, past the straggler's expiry").isEqualTo(2);
        assertThat(store.purge(2)).as("the pass ends").isZero();
        assertThat(store.find(straggler)).isPresent();
        sleep(Duration.ofNanos(Math.max(0, leaseEnds - System.nanoTime())).plusMillis(150));
        assertThat(store.purge(2)).as("the next pass finds the straggler, its lease over").isEqualTo(1);
        assertThat(store.find(straggler)).isEmpty();
    }

    @Test
    @DisplayName("a record past its retention is not purged while its owner's lease is live")
    void liveLeaseOutlivesRetention() {
        RecordKey id = id("long-runner");
        ClaimOutcome.Acquired owner = (ClaimOutcome.Acquired) store.claim(new ClaimRequest(id, fingerprint("a"), SHORT_LEASE, SHORT_LEASE));
        store.renew(id, owner.token(), Duration.ofSeconds(30));
        sleep(PAST_SHORT_LEASE);
        assertThat(store.purge(100)).isZero();
        assertThat(store.find(id)).isPresent();
        store.complete(id, owner.token(), response(200, "finished"), LONG);
        assertThat(claim(id)).isInstanceOf(ClaimOutcome.Replay.class);
    }

    @Test
    @DisplayName("keys are scoped: the same key under another scope is another record")
    void scopesAreIndependent() {
        RecordKey alice = new RecordKey(Scope.of("alice", "POST /x"), IdempotencyKey.of("shared"));
        RecordKey bob = new RecordKey(Scope.of("bob", "POST /x"), IdempotencyKey.of("shared"));
        ClaimOutcome.Acquired a = acquire(alice);
        store.complete(alice, a.token(), response(200, "alice's"), LONG);
        assertThat(claim(bob)).isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(claim(alice)).isEqualTo(new ClaimOutcome.Replay(response(200, "alice's")));
    }
}
