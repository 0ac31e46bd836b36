package dev.idem.testing;

import dev.idem.Fingerprint;
import dev.idem.LeaseLostException;
import dev.idem.StoredResponse;
import dev.idem.spi.Arguments;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.RecoveryPoint;
import dev.idem.spi.StoreAdministration;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * <b>NOT DURABLE. FOR UNIT TESTS ONLY. NEVER USE IN PRODUCTION.</b>
 *
 * <p>An {@link IdempotencyStore} that keeps every record in this JVM's heap, in one map. It survives
 * nothing: a restart, a crash or a second instance of the application each start from an empty
 * store and lose every claim, lease and stored response, so duplicates <em>will</em> run twice. It is
 * not shared between processes, so it gives no exactly-once guarantee across instances. Its memory
 * is bounded only by {@link #purge(int)}.
 *
 * <p>It exists so that an application's own unit tests can run code that uses {@code Idem} without a
 * database. It is <b>not</b> a substitute for a real store in store tests: a store's test must run
 * {@link IdempotencyStoreContract} against the real server it will use in production.
 *
 * <p>Within those limits it keeps the SPI contract exactly (and passes {@link IdempotencyStoreContract}):
 * claims are atomic (every method is {@code synchronized}); each acquisition of a key gets a token
 * larger than every earlier token of that key, also after a release or a purge (a released record
 * stays as a tombstone with its counter until it expires, and a new record starts above every token
 * this store ever issued); leases and expiry are judged by the given {@link Clock}; expired records
 * behave as absent and are deleted by {@link #purge(int)} at most {@code limit} at a time. Responses,
 * recovery points and fingerprints are immutable values (they copy their bytes in and out), so no
 * caller can change a stored record through a reference it passed in or got back.
 */
public final class NonDurableMemoryStore implements IdempotencyStore {

    /** IN_PROGRESS and COMPLETED are live; RELEASED is a tombstone that reads as absent. */
    private enum State {
        IN_PROGRESS, COMPLETED, RELEASED
    }

    private static final class Entry {
        Fingerprint fingerprint;
        State state;
        long token;
        int attempt;
        Instant leaseUntil;
        Instant expiresAt;
        Instant createdAt;
        RecoveryPoint recoveryPoint;
        StoredResponse response;
    }

    private final Clock clock;
    private final Map<RecordKey, Entry> records = new HashMap<>();
    /** The largest token ever issued; a new record's first token is above it, so purge never lets a key's tokens go back. */
    private long highestToken;
    private final StoreAdministration administration = new Administration();

    /** A store on the system clock (UTC). Not durable: see the class description. */
    public NonDurableMemoryStore() {
        this(Clock.systemUTC());
    }

    /** A store judging leases and expiry by {@code clock}, e.g. a test's adjustable clock. Not durable: see the class description. */
    public NonDurableMemoryStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock is null");
    }

    @Override
    public synchronized ClaimOutcome claim(ClaimRequest request) {
        Objects.requireNonNull(request, "request is null");
        Instant now = clock.instant();
        Entry e = records.get(request.id());
        if (e == null || e.state == State.RELEASED || expired(e, now)) {
            Entry fresh = new Entry();
            fresh.fingerprint = request.fingerprint();
            fresh.state = State.IN_PROGRESS;
            // A tombstone or an expired record keeps its counter: the next token still grows from it.
            fresh.token = nextToken(e == null ? 0 : e.token);
            fresh.attempt = 1;
            fresh.leaseUntil = now.plus(request.lease());
            fresh.expiresAt = now.plus(request.retention());
            fresh.createdAt = now;
            records.put(request.id(), fresh);
            return new ClaimOutcome.Acquired(fresh.token, fresh.attempt, Optional.empty());
        }
        if (!e.fingerprint.equals(request.fingerprint())) {
            return new ClaimOutcome.Mismatch();
        }
        if (e.state == State.COMPLETED) {
            return new ClaimOutcome.Replay(e.response);
        }
        if (e.leaseUntil.isAfter(now)) {
            return new ClaimOutcome.InProgress(Duration.between(now, e.leaseUntil));
        }
        // Takeover: the lease is over, the retention is not.
        e.token = nextToken(e.token);
        e.attempt++;
        e.leaseUntil = now.plus(request.lease());
        Instant retainUntil = now.plus(request.retention());
        if (retainUntil.isAfter(e.expiresAt)) {
            e.expiresAt = retainUntil;
        }
        return new ClaimOutcome.Acquired(e.token, e.attempt, Optional.ofNullable(e.recoveryPoint));
    }

    @Override
    public synchronized void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        Objects.requireNonNull(point, "point is null");
        owned(id, token, "checkpoint").recoveryPoint = point;
    }

    @Override
    public synchronized void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        Objects.requireNonNull(response, "response is null");
        Arguments.positive("retention", retention);
        Entry e = owned(id, token, "complete");
        Instant now = clock.instant();
        e.state = State.COMPLETED;
        e.response = response;
        e.recoveryPoint = null;
        e.leaseUntil = now;
        e.expiresAt = now.plus(retention);
    }

    @Override
    public synchronized void release(RecordKey id, long token) {
        Entry e = owned(id, token, "release");
        e.state = State.RELEASED;
        e.leaseUntil = clock.instant();
        e.recoveryPoint = null;
    }

    @Override
    public synchronized void renew(RecordKey id, long token, Duration lease) {
        Objects.requireNonNull(lease, "lease is null");
        if (lease.isNegative()) {
            throw new IllegalArgumentException("lease must not be negative, was " + lease);
        }
        owned(id, token, "renew").leaseUntil = clock.instant().plus(lease);
    }

    @Override
    public synchronized int purge(int limit) {
        Arguments.atLeast("purge limit", limit, 1);
        Instant now = clock.instant();
        int deleted = 0;
        for (Iterator<Entry> it = records.values().iterator(); it.hasNext() && deleted < limit; ) {
            if (expired(it.next(), now)) {
                it.remove();
                deleted++;
            }
        }
        return deleted;
    }

    @Override
    public synchronized Optional<IdempotencyRecord> find(RecordKey id) {
        Objects.requireNonNull(id, "id is null");
        Entry e = records.get(id);
        if (e == null || e.state == State.RELEASED || expired(e, clock.instant())) {
            return Optional.empty();
        }
        RecordState state = e.state == State.COMPLETED ? RecordState.COMPLETED : RecordState.IN_PROGRESS;
        return Optional.of(new IdempotencyRecord(id, e.fingerprint, state, e.token, e.attempt, e.leaseUntil, e.expiresAt,
                Optional.ofNullable(e.recoveryPoint), Optional.ofNullable(e.response)));
    }

    // ---- administration ----------------------------------------------------------------------

    /** Looks at, lists and releases this store's records (see {@link StoreAdministration}). */
    @Override
    public Optional<StoreAdministration> administration() {
        return Optional.of(administration);
    }

    /** The administration of this store's map, under the store's lock and on its clock. */
    private final class Administration implements StoreAdministration {
        /** The store's monitor, which its synchronized methods hold: one lock for every read and write. */
        private final Object lock = NonDurableMemoryStore.this;

        @Override
        public Optional<RecordSummary> inspect(RecordKey id) {
            synchronized (lock) {
                return find(id).map(r -> RecordSummary.of(r, records.get(id).createdAt, clock.instant()));
            }
        }

        @Override
        public List<RecordSummary> expiredLeases(int limit) {
            Arguments.between("limit", limit, 1, MAX_LIST);
            synchronized (lock) {
                Instant now = clock.instant();
                return records.entrySet().stream()
                        .filter(e -> e.getValue().state == State.IN_PROGRESS && !expired(e.getValue(), now) && !e.getValue().leaseUntil.isAfter(now))
                        .sorted(Comparator.comparing((Map.Entry<RecordKey, Entry> e) -> e.getValue().leaseUntil))
                        .limit(limit)
                        .map(e -> inspect(e.getKey()).orElseThrow())
                        .toList();
            }
        }

        @Override
        public Optional<RecordSummary> oldestInProgress() {
            synchronized (lock) {
                Instant now = clock.instant();
                return records.entrySet().stream()
                        .filter(e -> e.getValue().state == State.IN_PROGRESS && !expired(e.getValue(), now))
                        .min(Comparator.comparing((Map.Entry<RecordKey, Entry> e) -> e.getValue().createdAt))
                        .flatMap(e -> inspect(e.getKey()));
            }
        }

        @Override
        public ReleaseResult releaseStuck(RecordKey id, long token, boolean force) {
            Objects.requireNonNull(id, "id is null");
            synchronized (lock) {
                Instant now = clock.instant();
                Entry e = records.get(id);
                if (e == null || e.state != State.IN_PROGRESS || expired(e, now)) {
                    return ReleaseResult.NOT_IN_PROGRESS;
                }
                if (e.token != token) {
                    return ReleaseResult.TOKEN_CHANGED;
                }
                if (!force && e.leaseUntil.isAfter(now)) {
                    return ReleaseResult.LEASE_LIVE;
                }
                // A tombstone under a larger token: the holder's writes miss, the next claim's token grows from it.
                e.token = nextToken(e.token);
                e.state = State.RELEASED;
                e.leaseUntil = now;
                e.recoveryPoint = null;
                return ReleaseResult.RELEASED;
            }
        }
    }

    /** How many entries (live, expired or tombstones) the heap holds; for tests of purging. */
    public synchronized int size() {
        return records.size();
    }

    @Override
    public String toString() {
        return "NonDurableMemoryStore[NOT DURABLE, tests only]";
    }

    private long nextToken(long previous) {
        long token = Math.max(previous, highestToken) + 1;
        highestToken = token;
        return token;
    }

    /** Retention over and, for a record in progress, the lease too. A tombstone expires with its retention. */
    private static boolean expired(Entry e, Instant now) {
        boolean retentionOver = !e.expiresAt.isAfter(now);
        boolean leaseOver = !e.leaseUntil.isAfter(now);
        return retentionOver && (e.state != State.IN_PROGRESS || leaseOver);
    }

    /** The record if {@code token} is its current owner's; an absent, released or expired record has none. */
    private Entry owned(RecordKey id, long token, String operation) {
        Objects.requireNonNull(id, "id is null");
        Entry e = records.get(id);
        if (e == null || e.state != State.IN_PROGRESS || e.token != token || expired(e, clock.instant())) {
            throw LeaseLostException.staleToken(id.scope(), token, operation);
        }
        return e;
    }
}
