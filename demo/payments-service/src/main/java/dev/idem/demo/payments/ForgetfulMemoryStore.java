package dev.idem.demo.payments;

import dev.idem.Fingerprint;
import dev.idem.LeaseLostException;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * <b>DELIBERATELY BROKEN — variant {@code memory-store}, for the lab only.</b>
 *
 * <p>An idempotency store in this JVM's heap: while the process runs it deduplicates like any other
 * store (atomic claims, fencing tokens, leases, replay), so it passes every test that never restarts
 * the service. A restart forgets every key: a client retrying a payment whose answer it lost runs the
 * payment again. The source text's first rule — the dedup store must be durable — is what it breaks.
 */
public final class ForgetfulMemoryStore implements IdempotencyStore {

    private static final class Entry {
        Fingerprint fingerprint;
        boolean completed;
        long token;
        int attempt;
        Instant leaseUntil;
        Instant expiresAt;
        RecoveryPoint recoveryPoint;
        StoredResponse response;
    }

    private final Map<RecordKey, Entry> records = new HashMap<>();
    private long lastToken;

    @Override
    public synchronized ClaimOutcome claim(ClaimRequest request) {
        Instant now = Instant.now();
        Entry e = records.get(request.id());
        if (e == null || expired(e, now)) {
            Entry fresh = new Entry();
            fresh.fingerprint = request.fingerprint();
            fresh.token = ++lastToken;
            fresh.attempt = 1;
            fresh.leaseUntil = now.plus(request.lease());
            fresh.expiresAt = now.plus(request.retention());
            records.put(request.id(), fresh);
            return new ClaimOutcome.Acquired(fresh.token, 1, Optional.empty());
        }
        if (!e.fingerprint.equals(request.fingerprint())) {
            return new ClaimOutcome.Mismatch();
        }
        if (e.completed) {
            return new ClaimOutcome.Replay(e.response);
        }
        if (e.leaseUntil.isAfter(now)) {
            return new ClaimOutcome.InProgress(Duration.between(now, e.leaseUntil));
        }
        e.token = ++lastToken;
        e.attempt++;
        e.leaseUntil = now.plus(request.lease());
        return new ClaimOutcome.Acquired(e.token, e.attempt, Optional.ofNullable(e.recoveryPoint));
    }

    @Override
    public synchronized void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        owned(id, token, "checkpoint").recoveryPoint = point;
    }

    @Override
    public synchronized void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        Entry e = owned(id, token, "complete");
        Instant now = Instant.now();
        e.completed = true;
        e.response = response;
        e.recoveryPoint = null;
        e.leaseUntil = now;
        e.expiresAt = now.plus(retention);
    }

    @Override
    public synchronized void release(RecordKey id, long token) {
        owned(id, token, "release");
        records.remove(id);
    }

    @Override
    public synchronized void renew(RecordKey id, long token, Duration lease) {
        owned(id, token, "renew").leaseUntil = Instant.now().plus(lease);
    }

    @Override
    public synchronized int purge(int limit) {
        Instant now = Instant.now();
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
        Entry e = records.get(id);
        if (e == null || expired(e, Instant.now())) {
            return Optional.empty();
        }
        return Optional.of(new IdempotencyRecord(id, e.fingerprint, e.completed ? RecordState.COMPLETED : RecordState.IN_PROGRESS,
                e.token, e.attempt, e.leaseUntil, e.expiresAt, Optional.ofNullable(e.recoveryPoint), Optional.ofNullable(e.response)));
    }

    @Override
    public String toString() {
        return "ForgetfulMemoryStore[DELIBERATELY BROKEN: not durable]";
    }

    private static boolean expired(Entry e, Instant now) {
        return !e.expiresAt.isAfter(now) && (e.completed || !e.leaseUntil.isAfter(now));
    }

    private Entry owned(RecordKey id, long token, String operation) {
        Entry e = records.get(id);
        if (e == null || e.completed || e.token != token || expired(e, Instant.now())) {
            throw LeaseLostException.staleToken(id.scope(), token, operation);
        }
        return e;
    }
}
