package dev.idem.testing;

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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The store contract against {@link NonDurableMemoryStore} on the system clock (the contract sleeps
 * in real time), plus checks on an adjustable clock of what the contract cannot see from outside.
 */
class NonDurableMemoryStoreTest extends IdempotencyStoreContract implements StoreAdministrationContract {

    @Override
    protected IdempotencyStore newStore() {
        return new NonDurableMemoryStore();
    }

    @Override
    protected void closeStore() {
        // Nothing to release: the heap is the store.
    }

    // ---- on an adjustable clock -------------------------------------------------------------------

    /** A clock that moves only when told to. */
    private static final class TestClock extends Clock {
        private volatile Instant now = Instant.parse("2030-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private static final RecordKey KEY = new RecordKey(Scope.of("alice", "POST /memory"), IdempotencyKey.of("k-1"));
    private static final Fingerprint FP = Fingerprint.builder().part("body", "x").build();

    private static ClaimOutcome.Acquired acquired(NonDurableMemoryStore store, Duration lease, Duration retention) {
        ClaimOutcome outcome = store.claim(new ClaimRequest(KEY, FP, lease, retention));
        assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
        return (ClaimOutcome.Acquired) outcome;
    }

    @Test
    @DisplayName("leases are judged by the given clock: in progress until it passes the lease, then taken over")
    void leaseFollowsTheGivenClock() {
        TestClock clock = new TestClock();
        NonDurableMemoryStore memory = new NonDurableMemoryStore(clock);
        ClaimOutcome.Acquired first = acquired(memory, Duration.ofSeconds(30), Duration.ofHours(1));
        memory.checkpoint(KEY, first.token(), RecoveryPoint.of("one", new byte[] {1}));

        clock.advance(Duration.ofSeconds(10));
        assertThat(memory.claim(new ClaimRequest(KEY, FP, Duration.ofSeconds(30), Duration.ofHours(1))))
                .isEqualTo(new ClaimOutcome.InProgress(Duration.ofSeconds(20)));

        clock.advance(Duration.ofSeconds(20));
        ClaimOutcome.Acquired second = acquired(memory, Duration.ofSeconds(30), Duration.ofHours(1));
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.recoveryPoint()).contains(RecoveryPoint.of("one", new byte[] {1}));
    }

    @Test
    @DisplayName("tokens of one key grow strictly across release, expiry and purge")
    void tokensGrowAcrossReleaseExpiryAndPurge() {
        TestClock clock = new TestClock();
        NonDurableMemoryStore memory = new NonDurableMemoryStore(clock);
        ClaimOutcome.Acquired first = acquired(memory, Duration.ofSeconds(1), Duration.ofSeconds(1));
        memory.release(KEY, first.token());
        assertThat(memory.find(KEY)).isEmpty();

        ClaimOutcome.Acquired second = acquired(memory, Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.attempt()).isEqualTo(1);
        memory.complete(KEY, second.token(), StoredResponse.of(200, new byte[0]), Duration.ofSeconds(1));

        clock.advance(Duration.ofSeconds(2));
        assertThat(memory.find(KEY)).isEmpty();
        assertThat(memory.purge(10)).isEqualTo(1);
        assertThat(memory.size()).isZero();

        ClaimOutcome.Acquired third = acquired(memory, Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertThat(third.token()).isGreaterThan(second.token());
        assertThatThrownBy(() -> memory.complete(KEY, second.token(), StoredResponse.of(200, new byte[0]), Duration.ofSeconds(1)))
                .isInstanceOf(LeaseLostException.class);
    }

    @Test
    @DisplayName("an expired record acts as absent for writes too, and purge deletes it in batches")
    void expiredInProgressRecordIsAbsentAndPurged() {
        TestClock clock = new TestClock();
        NonDurableMemoryStore memory = new NonDurableMemoryStore(clock);
        for (int i = 0; i < 7; i++) {
            RecordKey id = new RecordKey(KEY.scope(), IdempotencyKey.of("old-" + i));
            memory.claim(new ClaimRequest(id, FP, Duration.ofSeconds(1), Duration.ofSeconds(1)));
        }
        ClaimOutcome.Acquired owner = acquired(memory, Duration.ofSeconds(1), Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));

        assertThatThrownBy(() -> memory.renew(KEY, owner.token(), Duration.ofSeconds(5))).isInstanceOf(LeaseLostException.class);
        assertThat(memory.purge(5)).isEqualTo(5);
        assertThat(memory.purge(5)).isEqualTo(3);
        assertThat(memory.purge(5)).isZero();
    }

    @Test
    @DisplayName("what comes back is a copy: changing a returned body or a passed-in array changes nothing stored")
    void storedValuesAreDefensiveCopies() {
        NonDurableMemoryStore memory = new NonDurableMemoryStore(new TestClock());
        ClaimOutcome.Acquired owner = acquired(memory, Duration.ofSeconds(30), Duration.ofHours(1));
        byte[] state = {1, 2, 3};
        memory.checkpoint(KEY, owner.token(), RecoveryPoint.of("p", state));
        state[0] = 99;
        assertThat(memory.find(KEY).orElseThrow().recoveryPoint().orElseThrow().state()).containsExactly(1, 2, 3);

        byte[] body = {4, 5, 6};
        memory.complete(KEY, owner.token(), StoredResponse.of(201, Map.of("X-A", List.of("b")), body), Duration.ofHours(1));
        body[0] = 99;
        IdempotencyRecord record = memory.find(KEY).orElseThrow();
        record.response().orElseThrow().body()[1] = 99;
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(((ClaimOutcome.Replay) memory.claim(new ClaimRequest(KEY, FP, Duration.ofSeconds(30), Duration.ofHours(1))))
                .response().body()).containsExactly(4, 5, 6);
    }

    @Test
    @DisplayName("a null response is rejected and leaves the record in progress with its token")
    void completeWithNullResponseChangesNothing() {
        NonDurableMemoryStore memory = new NonDurableMemoryStore(new TestClock());
        ClaimOutcome.Acquired owner = acquired(memory, Duration.ofSeconds(30), Duration.ofHours(1));
        assertThatThrownBy(() -> memory.complete(KEY, owner.token(), null, Duration.ofHours(1)))
                .isInstanceOf(NullPointerException.class);
        IdempotencyRecord record = memory.find(KEY).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.token()).isEqualTo(owner.token());
    }

    @Test
    @DisplayName("its description says it is not durable")
    void saysItIsNotDurable() {
        assertThat(new NonDurableMemoryStore()).hasToString("NonDurableMemoryStore[NOT DURABLE, tests only]");
    }
}
