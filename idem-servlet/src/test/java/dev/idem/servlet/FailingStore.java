package dev.idem.servlet;

import dev.idem.LeaseLostException;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The real store of a test, failing on demand: an operation armed with {@link #fail} throws a
 * {@link StoreException} (as the JDBC store does when its database is gone) instead of reaching the
 * database, the next {@code times} times it is called; {@link #loseLease} makes it throw a
 * {@link LeaseLostException} instead. Everything else goes to the real store.
 */
final class FailingStore implements IdempotencyStore {
    enum Op { CLAIM, CHECKPOINT, COMPLETE, RELEASE, RENEW }

    private final IdempotencyStore real;
    private final Map<Op, Integer> failures = new ConcurrentHashMap<>();
    private final Map<Op, Boolean> leaseLost = new ConcurrentHashMap<>();

    FailingStore(IdempotencyStore real) {
        this.real = real;
    }

    /** The next {@code times} calls of {@code op} fail with a {@link StoreException}. */
    FailingStore fail(Op op, int times) {
        failures.put(op, times);
        return this;
    }

    /** The next call of {@code op} fails with a {@link LeaseLostException}, as if another owner held the key. */
    FailingStore loseLease(Op op) {
        leaseLost.put(op, true);
        return this;
    }

    /** Every call fails no more. */
    void recover() {
        failures.clear();
        leaseLost.clear();
    }

    private void maybeFail(Op op, RecordKey id, long token) {
        if (leaseLost.remove(op) != null) {
            throw LeaseLostException.staleToken(id.scope(), token, op.name().toLowerCase());
        }
        Integer left = failures.computeIfPresent(op, (o, n) -> n - 1);
        if (left != null) {
            if (left <= 0) {
                failures.remove(op);
            }
            throw StoreException.failed("test store", op.name().toLowerCase(), id.scope(),
                    new SQLException("Connection refused (the database is down for this test)"));
        }
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        maybeFail(Op.CLAIM, request.id(), 0);
        return real.claim(request);
    }

    @Override
    public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        maybeFail(Op.CHECKPOINT, id, token);
        real.checkpoint(id, token, point);
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        maybeFail(Op.COMPLETE, id, token);
        real.complete(id, token, response, retention);
    }

    @Override
    public void release(RecordKey id, long token) {
        maybeFail(Op.RELEASE, id, token);
        real.release(id, token);
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        maybeFail(Op.RENEW, id, token);
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
