package dev.idem;

import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An in-memory {@link IdempotencyStore} that follows the SPI's javadoc contract, for testing the
 * engine without a database. Leases and expiry are judged by its own clock, which only moves when a
 * test calls {@link #advance}, so lease expiry is deterministic. It also records the calls the engine
 * makes, so tests can tell a release from a lease ended with {@link Duration#ZERO}.
 */
final class FakeStore implements IdempotencyStore {

    private static final class Entry {
        Fingerprint fingerprint;
        RecordState state;
        long token;
        int attempt;
        Instant leaseUntil;
        Instant expiresAt;
        RecoveryPoint recoveryPoint;
        StoredResponse response;
    }

    private final Map<RecordKey, Entry> records = new LinkedHashMap<>();
    private final List<String> calls = new ArrayList<>();
    private final List<Duration> renewals = new ArrayList<>();
    private final Set<String> failing = new HashSet<>();
    private Instant now = Instant.parse("2030-01-01T00:00:00Z");
    private long lastToken;
    private int purgeCalls;

    synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    synchronized Instant now() {
        return now;
    }

    /** Names of the SPI calls made so far, in order ("claim", "checkpoint", "complete", …). */
    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    /** The lease argument of every {@link #renew} call, in order. */
    synchronized List<Duration> renewals() {
        return List.copyOf(renewals);
    }

    synchronized int purgeCalls() {
        return purgeCalls;
    }

    /** Puts a completed record whose retention is already over, for the sweeper to find. */
    synchronized void putExpired(RecordKey id) {
        Entry e = new Entry();
        e.fingerprint = Fingerprint.none();
        e.state = RecordState.COMPLETED;
        e.token = ++lastToken;
        e.attempt = 1;
        e.leaseUntil = now.minusSeconds(2);
        e.expiresAt = now.minusSeconds(1);
        e.response = StoredResponse.of(200, new byte[0]);
        records.put(id, e);
    }

    synchronized int size() {
        return records.size();
    }

    /**
     * Makes every later call of the named SPI operation fail as if the store were unreachable;
     * {@code "claim tombstone"} and the like fail it only for tombstone records.
     */
    synchronized void failOn(String operation) {
        failing.add(operation);
    }

    /** Another instance takes the record over, as after its lease ran out: the holder's token goes stale. */
    synchronized void takeOver(RecordKey id) {
        Entry e = live(id);
        e.token = ++lastToken;
        e.attempt++;
    }

    @Override
    public synchronized ClaimOutcome claim(ClaimRequest request) {
        calls.add("claim");
        failIfAsked("claim", request.id());
        Entry e = live(request.id());
        if (e == null) {
            e = new Entry();
            e.fingerprint = request.fingerprint();
            e.state = RecordState.IN_PROGRESS;
            e.token = ++lastToken;
            e.attempt = 1;
            e.leaseUntil = now.plus(request.lease());
            e.expiresAt = now.plus(request.retention());
            records.put(request.id(), e);
            return new ClaimOutcome.Acquired(e.token, e.attempt, Optional.empty());
        }
        if (!e.fingerprint.equals(request.fingerprint())) {
            return new ClaimOutcome.Mismatch();
        }
        if (e.state == RecordState.COMPLETED) {
            return new ClaimOutcome.Replay(e.response);
        }
        if (e.leaseUntil.isAfter(now)) {
            return new ClaimOutcome.InProgress(Duration.between(now, e.leaseUntil));
        }
        e.token = ++lastToken;
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
        calls.add("checkpoint");
        failIfAsked("checkpoint", id);
        owned(id, token, "checkpoint").recoveryPoint = point;
    }

    @Override
    public synchronized void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        calls.add("complete");
        failIfAsked("complete", id);
        Entry e = owned(id, token, "complete");
        e.state = RecordState.COMPLETED;
        e.response = response;
        e.leaseUntil = now;
        e.expiresAt = now.plus(retention);
    }

    @Override
    public synchronized void release(RecordKey id, long token) {
        calls.add("release");
        failIfAsked("release", id);
        owned(id, token, "release");
        records.remove(id);
    }

    @Override
    public synchronized void renew(RecordKey id, long token, Duration lease) {
        calls.add("renew");
        failIfAsked("renew", id);
        renewals.add(lease);
        owned(id, token, "renew").leaseUntil = now.plus(lease);
    }

    @Override
    public synchronized int purge(int limit) {
        purgeCalls++;
        failIfAsked("purge", null);
        int deleted = 0;
        for (Iterator<Map.Entry<RecordKey, Entry>> it = records.entrySet().iterator(); it.hasNext() && deleted < limit; ) {
            if (expired(it.next().getValue())) {
                it.remove();
                deleted++;
            }
        }
        return deleted;
    }

    @Override
    public synchronized Optional<IdempotencyRecord> find(RecordKey id) {
        Entry e = live(id);
        if (e == null) {
            return Optional.empty();
        }
        return Optional.of(new IdempotencyRecord(id, e.fingerprint, e.state, e.token, e.attempt, e.leaseUntil,
                e.expiresAt, Optional.ofNullable(e.recoveryPoint), Optional.ofNullable(e.response)));
    }

    private void failIfAsked(String operation, RecordKey id) {
        boolean tombstone = id != null && id.scope().value().startsWith("idem%tombstone ");
        if (failing.contains(operation) || tombstone && failing.contains(operation + " tombstone")) {
            throw StoreException.failed("fake store", operation, id == null ? null : id.scope(), null);
        }
    }

    private Entry live(RecordKey id) {
        Entry e = records.get(id);
        if (e != null && expired(e)) {
            records.remove(id);
            return null;
        }
        return e;
    }

    private boolean expired(Entry e) {
        boolean retentionOver = !e.expiresAt.isAfter(now);
        boolean leaseOver = !e.leaseUntil.isAfter(now);
        return retentionOver && (e.state == RecordState.COMPLETED || leaseOver);
    }

    private Entry owned(RecordKey id, long token, String operation) {
        Entry e = live(id);
        if (e == null || e.state != RecordState.IN_PROGRESS || e.token != token) {
            throw LeaseLostException.staleToken(id.scope(), token, operation);
        }
        return e;
    }
}
