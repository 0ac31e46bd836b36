package dev.idem.jdbc;

import dev.idem.FailurePolicy;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdemException;
import dev.idem.IdemListener;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.ResponseTooLargeException;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;

/**
 * The strongest and fastest mode, for operations whose effects all live in the store's database:
 * the claim, the operation's writes and the stored response commit in one transaction, or none of
 * them does. There is no window in which the effect exists without its record.
 *
 * <p>A concurrent duplicate blocks on the uncommitted record (PostgreSQL: the unique index; SQLite:
 * the write lock) until the first transaction ends, then replays its response, or acquires the key
 * if the first rolled back. A record left in progress by the non-transactional engine answers
 * {@link Outcome.InProgress}.
 */
public final class TransactionalIdem {
    private final JdbcIdempotencyStore store;
    private final Duration lease;
    private final Duration retention;
    private final FailurePolicy failurePolicy;
    private final IdemListener listener;
    private final int maxResponseBytes;

    private TransactionalIdem(Idem settings, JdbcIdempotencyStore store) {
        this.store = store;
        this.lease = settings.lease();
        this.retention = settings.retention();
        this.failurePolicy = settings.failurePolicy();
        this.listener = settings.listener();
        this.maxResponseBytes = settings.maxResponseBytes();
    }

    /**
     * The transactional mode of {@code idem}: same store, lease, retention, failure policy, listener
     * and response cap. The in-flight policy does not apply: a duplicate always waits on the row.
     *
     * @throws IllegalArgumentException if {@code idem}'s store is not a {@link JdbcIdempotencyStore}
     */
    public static TransactionalIdem of(Idem idem) {
        Objects.requireNonNull(idem, "idem is null");
        if (!(idem.store() instanceof JdbcIdempotencyStore jdbc)) {
            throw new IllegalArgumentException("the transactional mode needs a JdbcIdempotencyStore, not "
                    + idem.store().getClass().getName());
        }
        return new TransactionalIdem(idem, jdbc);
    }

    /**
     * Runs {@code operation} in one transaction with the claim and the stored response.
     *
     * <p>If the operation throws, or returns a response the failure policy does not store, the
     * transaction rolls back: its writes and the claim vanish and a retry runs again. Checked
     * exceptions are wrapped in an {@link IdemException}; unchecked ones propagate as they are.
     */
    public Outcome execute(Scope scope, IdempotencyKey key, Fingerprint fingerprint, TransactionalOperation operation) {
        Objects.requireNonNull(operation, "operation is null");
        ClaimRequest request = new ClaimRequest(new RecordKey(scope, key), fingerprint, lease, retention);
        try (Connection c = store.dataSource().getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                return inTransaction(c, request, operation);
            } catch (Throwable failure) {
                rollbackQuietly(c, failure);
                throw failure;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw store.failure("transactional execute", scope, e);
        }
    }

    private Outcome inTransaction(Connection c, ClaimRequest request, TransactionalOperation operation) throws SQLException {
        Scope scope = request.id().scope();
        ClaimOutcome claim = store.claim(c, request);
        if (!(claim instanceof ClaimOutcome.Acquired acquired)) {
            c.rollback();
            return answer(scope, claim);
        }
        listener.claimed(scope, acquired.attempt());
        StoredResponse response = run(scope, operation, c);
        if (!failurePolicy.stores(response)) {
            c.rollback();
            return new Outcome.Executed(response, false, acquired.attempt());
        }
        store.complete(c, request.id(), acquired.token(), response, retention);
        c.commit();
        return new Outcome.Executed(response, true, acquired.attempt());
    }

    private StoredResponse run(Scope scope, TransactionalOperation operation, Connection c) {
        StoredResponse response;
        try {
            response = operation.run(c);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new TransactionalOperationException(scope, e);
        }
        if (response == null) {
            throw new IllegalStateException("operation for scope '" + scope + "' returned null; return a StoredResponse");
        }
        if (response.bodyLength() > maxResponseBytes) {
            throw ResponseTooLargeException.of(scope, response.bodyLength(), maxResponseBytes);
        }
        return response;
    }

    private Outcome answer(Scope scope, ClaimOutcome claim) {
        if (claim instanceof ClaimOutcome.Replay replay) {
            listener.replayed(scope);
            return new Outcome.Replayed(replay.response());
        }
        if (claim instanceof ClaimOutcome.Mismatch) {
            listener.mismatch(scope);
            return new Outcome.Mismatch();
        }
        listener.conflict(scope);
        return new Outcome.InProgress(((ClaimOutcome.InProgress) claim).retryAfter());
    }

    private static void rollbackQuietly(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /** A checked exception thrown by a {@link TransactionalOperation}; the transaction was rolled back. */
    public static final class TransactionalOperationException extends IdemException {
        private static final long serialVersionUID = 1L;

        TransactionalOperationException(Scope scope, Exception cause) {
            // The cause's class only: its message is the application's and may quote a key or a body.
            super("transactional operation for scope '" + scope + "' failed with " + cause.getClass().getName()
                    + " and was rolled back", cause);
        }
    }
}
