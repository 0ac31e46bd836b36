package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SweeperTest {

    private final FakeStore store = new FakeStore();
    private final RecordingListener events = new RecordingListener();
    private final Scope scope = Scope.of("alice", "POST /payments");

    private void putExpired(int count) {
        for (int i = 0; i < count; i++) {
            store.putExpired(new RecordKey(scope, IdempotencyKey.of("expired-" + i)));
        }
    }

    private Sweeper sweeper(int batchSize) {
        return Sweeper.builder(store).batchSize(batchSize).listener(events).build();
    }

    @Test
    @DisplayName("one run purges batch after batch until a short one, and reports the total once")
    void loopsUntilShortBatch() {
        putExpired(25);

        int purged = sweeper(10).sweepOnce();

        assertThat(purged).isEqualTo(25);
        assertThat(store.purgeCalls()).isEqualTo(3);
        assertThat(store.size()).isZero();
        assertThat(events.events()).containsExactly("purged 25");
    }

    @Test
    @DisplayName("when the last batch is exactly full, one more (empty) batch confirms nothing is left")
    void exactMultipleOfBatch() {
        putExpired(20);

        assertThat(sweeper(10).sweepOnce()).isEqualTo(20);
        assertThat(store.purgeCalls()).isEqualTo(3);
        assertThat(events.events()).containsExactly("purged 20");
    }

    @Test
    @DisplayName("a run stops after maxBatchesPerRun, leaving the rest for the next run")
    void boundedBatchesPerRun() {
        putExpired(25);
        Sweeper bounded = Sweeper.builder(store).batchSize(10).maxBatchesPerRun(2).listener(events).build();

        assertThat(bounded.sweepOnce()).isEqualTo(20);
        assertThat(store.purgeCalls()).isEqualTo(2);
        assertThat(store.size()).isEqualTo(5);

        assertThat(bounded.sweepOnce()).isEqualTo(5);
        assertThat(events.events()).containsExactly("purged 20", "purged 5");
    }

    @Test
    @DisplayName("with nothing expired, one store call is made and nothing is reported")
    void nothingToPurge() {
        assertThat(sweeper(10).sweepOnce()).isZero();
        assertThat(store.purgeCalls()).isEqualTo(1);
        assertThat(events.events()).isEmpty();
    }

    @Test
    @DisplayName("live records are not purged")
    void liveRecordsKept() {
        putExpired(3);
        store.claim(new ClaimRequest(new RecordKey(scope, IdempotencyKey.of("live")), Fingerprint.none(),
                Duration.ofSeconds(30), Duration.ofHours(1)));

        assertThat(sweeper(10).sweepOnce()).isEqualTo(3);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    @DisplayName("a listener that throws does not change what a run returns")
    void throwingListener() {
        putExpired(4);
        Sweeper sweeper = Sweeper.builder(store).batchSize(10).listener(new IdemListener() {
            @Override
            public void purged(int count) {
                throw new IllegalStateException("metrics down");
            }
        }).build();

        assertThat(sweeper.sweepOnce()).isEqualTo(4);
    }

    @Test
    @DisplayName("anything Purgeable can be swept, not only a store (an inbox, an outbox)")
    void sweepsAnyPurgeable() {
        int[] left = {23};
        dev.idem.spi.Purgeable rows = limit -> {
            int deleted = Math.min(limit, left[0]);
            left[0] -= deleted;
            return deleted;
        };

        assertThat(Sweeper.builder(rows).batchSize(10).listener(events).build().sweepOnce()).isEqualTo(23);
        assertThat(left[0]).isZero();
        assertThat(events.events()).containsExactly("purged 23");
    }

    @Test
    @DisplayName("a store failure in a direct run propagates")
    void storeFailurePropagates() {
        store.failOn("purge");
        assertThatThrownBy(() -> sweeper(10).sweepOnce()).isInstanceOf(StoreException.class);
    }

    @Test
    @DisplayName("started, it sweeps in the background until closed; it cannot be started twice")
    void backgroundRuns() throws Exception {
        putExpired(7);
        try (Sweeper sweeper = Sweeper.builder(store).interval(Duration.ofMillis(5)).listener(events).build()) {
            sweeper.start();
            assertThatThrownBy(sweeper::start).isInstanceOf(IllegalStateException.class);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (events.events().isEmpty()) {
                assertThat(System.nanoTime()).as("no background sweep happened").isLessThan(deadline);
                Thread.sleep(5);
            }
        }
        assertThat(events.events()).containsExactly("purged 7");
        assertThat(store.size()).isZero();
    }

    @Test
    @DisplayName("a background run that fails is retried at the next tick")
    void backgroundSurvivesFailures() throws Exception {
        store.failOn("purge");
        Sweeper sweeper = Sweeper.builder(store).interval(Duration.ofMillis(5)).build().start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.purgeCalls() < 3) {
                assertThat(System.nanoTime()).as("sweeper stopped after a failure").isLessThan(deadline);
                Thread.sleep(5);
            }
        } finally {
            sweeper.close();
        }
        assertThat(store.purgeCalls()).isGreaterThanOrEqualTo(3);
    }

    /** A clock the test moves by hand. */
    private static final class HandClock extends Clock {
        private Instant now = Instant.parse("2026-12-03T10:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @Test
    @DisplayName("status: rows removed in all and in the last run, and the lag restarts at each run that drained the table")
    void statusAndLag() {
        HandClock clock = new HandClock();
        Instant created = clock.instant();
        Sweeper sweeper = Sweeper.builder(store).name("inbox").batchSize(10).maxBatchesPerRun(2).clock(clock).build();
        assertThat(sweeper.status().lastRun()).as("before the first run").isNull();
        assertThat(sweeper.status().caughtUpAt()).as("the lag counts from creation").isEqualTo(created);

        putExpired(25);
        clock.advance(Duration.ofMinutes(1));
        sweeper.sweepOnce();
        Sweeper.Status bounded = sweeper.status();
        assertThat(bounded.name()).isEqualTo("inbox");
        assertThat(bounded.removed()).isEqualTo(20);
        assertThat(bounded.lastRunRemoved()).isEqualTo(20);
        assertThat(bounded.lastRun()).isEqualTo(created.plus(Duration.ofMinutes(1)));
        assertThat(bounded.caughtUpAt()).as("rows were left: not caught up").isEqualTo(created);
        assertThat(bounded.lag(clock.instant())).isEqualTo(Duration.ofMinutes(1));

        clock.advance(Duration.ofMinutes(1));
        Instant drainedAt = clock.instant();
        sweeper.sweepOnce();
        Sweeper.Status drained = sweeper.status();
        assertThat(drained.removed()).isEqualTo(25);
        assertThat(drained.lastRunRemoved()).isEqualTo(5);
        assertThat(drained.lastRunFailed()).isFalse();
        assertThat(drained.caughtUpAt()).isEqualTo(drainedAt);
        clock.advance(Duration.ofSeconds(30));
        assertThat(drained.lag(clock.instant())).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    @DisplayName("a failed run is marked in the status and does not move the lag's start")
    void failedRunInStatus() {
        HandClock clock = new HandClock();
        Sweeper sweeper = Sweeper.builder(store).batchSize(10).clock(clock).build();
        store.failOn("purge");
        clock.advance(Duration.ofMinutes(5));

        assertThatThrownBy(sweeper::sweepOnce).isInstanceOf(StoreException.class);

        assertThat(sweeper.status().lastRunFailed()).isTrue();
        assertThat(sweeper.status().lag(clock.instant())).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    @DisplayName("a name is checked: visible ASCII, 1-64 characters, named in the message")
    void nameChecked() {
        assertThat(Sweeper.builder(store).build().name()).isEqualTo("records");
        assertThatThrownBy(() -> Sweeper.builder(store).name(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sweeper name");
        assertThatThrownBy(() -> Sweeper.builder(store).name("in box"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sweeper name");
        assertThatThrownBy(() -> Sweeper.builder(store).name("x".repeat(65)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64");
    }

    @Test
    @DisplayName("isRunning follows start and close")
    void isRunningFollowsStartAndClose() {
        Sweeper sweeper = Sweeper.builder(store).build();
        assertThat(sweeper.isRunning()).isFalse();
        sweeper.start();
        assertThat(sweeper.isRunning()).isTrue();
        sweeper.close();
        assertThat(sweeper.isRunning()).isFalse();
    }
}
