package dev.idem.jdbc;

import dev.idem.FailurePolicy;
import dev.idem.Fingerprint;
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

    private TransactionalIdem(Builder b) {
        this.store = b.store;
        this.lease = b.lease;
        this.retention = b.retention;
        this.failurePolicy = b.failurePolicy;
        this.listener = b.listener;
        this.maxResponseBytes = b.maxResponseBytes;
    }

    public static Builder builder(JdbcIdempotencyStore store) {
        return new Builder(store);
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

    /** Settings of a {@link TransactionalIdem}. */
    public static final class Builder {
        private final JdbcIdempotencyStore store;
        private Duration lease = Duration.ofSeconds(30);
        private Duration retention = Duration.ofHours(24);
        private FailurePolicy failurePolicy = FailurePolicy.defaults();
        private IdemListener listener = IdemListener.noop();
        private int maxResponseBytes = 8 * 1024 * 1024;

        private Builder(JdbcIdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store is null");
        }

        /**
         * The lease written with the record. While the transaction is open nobody else can see the
         * record, so this matters only if a non-transactional engine shares the key. Default 30 s.
         */
        public Builder lease(Duration lease) {
            this.lease = positive("lease", lease);
            return this;
        }

        /** How long the committed response is kept for replay. Default 24 h. */
        public Builder retention(Duration retention) {
            this.retention = positive("retention", retention);
            return this;
        }

        /** Responses the policy does not store roll the transaction back. Default: statuses below 500. */
        public Builder failurePolicy(FailurePolicy failurePolicy) {
            this.failurePolicy = Objects.requireNonNull(failurePolicy, "failurePolicy is null");
            return this;
        }

        public Builder listener(IdemListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        /** Default 8 MiB. */
        public Builder maxResponseBytes(int maxResponseBytes) {
            if (maxResponseBytes < 0) {
                throw new IllegalArgumentException("maxResponseBytes must not be negative, was " + maxResponseBytes);
            }
            this.maxResponseBytes = maxResponseBytes;
            return this;
        }

        public TransactionalIdem build() {
            if (retention.compareTo(lease) < 0) {
                throw new IllegalStateException("retention (" + retention + ") must not be shorter than the lease (" + lease + ")");
            }
            return new TransactionalIdem(this);
        }

        private static Duration positive(String name, Duration value) {
            Objects.requireNonNull(value, () -> name + " is null");
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + value);
            }
            return value;
        }
    }
}
