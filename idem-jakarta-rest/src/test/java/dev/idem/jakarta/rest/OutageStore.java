package dev.idem.jakarta.rest;

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
import java.util.Optional;

/**
 * The test's real store, unreachable while {@link #down} is set: every call throws the
 * {@link StoreException} the JDBC store throws when its database is gone.
 */
final class OutageStore implements IdempotencyStore {
    private final IdempotencyStore real;
    volatile boolean down;
    /** Only {@code complete} fails: the store went down while the resource ran. */
    volatile boolean completeDown;

    OutageStore(IdempotencyStore real) {
        this.real = real;
    }

    private void check(String op, RecordKey id) {
        if (down) {
            throw StoreException.failed("test store", op, id.scope(), new SQLException("Connection refused (the database is down for this test)"));
        }
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        check("claim", request.id());
        return real.claim(request);
    }

    @Override
    public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        check("checkpoint", id);
        real.checkpoint(id, token, point);
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        check("complete", id);
        if (completeDown) {
            throw StoreException.failed("test store", "complete", id.scope(), new SQLException("Connection refused (the database went down)"));
        }
        real.complete(id, token, response, retention);
    }

    @Override
    public void release(RecordKey id, long token) {
        check("release", id);
        real.release(id, token);
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        check("renew", id);
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
