package dev.idem.webflux;

import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real store that notes the thread of each call the filter causes (claim, checkpoint, complete,
 * release; renewals run on the engine's own thread), so a test can assert none ran on an event loop.
 */
final class ThreadRecordingStore implements IdempotencyStore {
    private final IdempotencyStore real;
    final List<String> threads = new CopyOnWriteArrayList<>();

    ThreadRecordingStore(IdempotencyStore real) {
        this.real = real;
    }

    private void note(String op) {
        threads.add(op + " on " + Thread.currentThread().getName());
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        note("claim");
        return real.claim(request);
    }

    @Override
    public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        note("checkpoint");
        real.checkpoint(id, token, point);
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        note("complete");
        real.complete(id, token, response, retention);
    }

    @Override
    public void release(RecordKey id, long token) {
        note("release");
        real.release(id, token);
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        real.renew(id, token, lease);
    }

    @Override
    public int purge(int limit) {
        return real.purge(limit);
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey id) {
        return real.find(id);
    }
}
