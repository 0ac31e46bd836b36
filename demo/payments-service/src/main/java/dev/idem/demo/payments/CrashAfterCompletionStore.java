package dev.idem.demo.payments;

import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code --crash-at=after-completion}: the store in use, with a halt right after a response was stored
 * (the record is COMPLETED) and before the filter sends it. Used only when that point is armed.
 */
final class CrashAfterCompletionStore implements IdempotencyStore {
    private final IdempotencyStore delegate;
    private final CrashPoints crashes;

    CrashAfterCompletionStore(IdempotencyStore delegate, CrashPoints crashes) {
        this.delegate = delegate;
        this.crashes = crashes;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        return delegate.claim(request);
    }

    @Override
    public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        delegate.checkpoint(id, token, point);
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        delegate.complete(id, token, response, retention);
        crashes.reach(CrashPoint.AFTER_COMPLETION);
    }

    @Override
    public void release(RecordKey id, long token) {
        delegate.release(id, token);
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        delegate.renew(id, token, lease);
    }

    @Override
    public int purge(int limit) {
        return delegate.purge(limit);
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey id) {
        return delegate.find(id);
    }

    @Override
    public String toString() {
        return delegate + " (halts after its first completion: --crash-at=after-completion)";
    }
}
