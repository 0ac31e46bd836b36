package dev.idem.jdbc;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.OperationFailedException;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoragePolicy;
import dev.idem.StoredResponse;
import dev.idem.jdbc.support.Transactions;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The strongest and fastest mode, for operations whose effects all live in the store's database:
 * the claim, the operation's writes and the stored response commit in one transaction, or none of
 * them does. There is no window in which the effect exists without its record.
 *
 * <p>A concurrent duplicate blocks on the uncommitted record (PostgreSQL: the unique index; SQLite:
 * the write lock) until the first transaction ends, then replays its response, or acquires the key
 * if the first rolled back. A record left in progress by the non-transactional engine answers
 * {@link Outcome.InProgress}.
 *
 * <p>Two ways in: {@link #execute} opens, commits or rolls back a transaction of its own;
 * {@link #join} runs in a transaction the caller already has (a Spring {@code @Transactional}
 * method, a {@code TransactionTemplate}), so code outside the operation can write in the same
 * transaction, and the caller commits or rolls back as {@link #shouldCommit} says.
 *
 * <p>Leases are written but never renewed, and the in-flight policy does not apply: nobody can take
 * over an uncommitted claim, and a duplicate waits for the transaction to end. So an operation
 * should be short, and must not call anything outside the database: a rollback cannot undo it (run
 * such work as phases with {@link Idem#execute}).
 */
public final class TransactionalIdem {
    private final JdbcIdempotencyStore store;
    /**
     * At the pool's own isolation, not the store's: the operation's writes share the transaction and
     * keep the level the application chose for them. A stricter level costs retries under contention
     * (serialization failures run the transaction again whole), never a wrong answer.
     */
    private final Transactions transactions;
    /**
     * The engine this mode runs on: its lease, retention, listener, and its answers and storage
     * decision ({@link Idem#answer}, {@link Idem#toStore}), shared with {@link Idem#execute}.
     */
    private final Idem engine;

    private TransactionalIdem(Idem engine, JdbcIdempotencyStore store) {
        this.store = store;
        this.transactions = new Transactions(store.dataSource());
        this.engine = engine;
    }

    /**
     * The transactional mode of {@code idem}: same store, lease, retention, storage policy, listener
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
     * Runs {@code operation} in one transaction with the claim and the stored response, on a
     * connection of its own from the store's {@link #dataSource()}; the result of
     * {@link #join} committed when {@link #shouldCommit} says so, else rolled back.
     *
     * <p>If the operation throws, or returns a response the storage policy does not store, the
     * transaction rolls back: its writes and the claim vanish and a retry runs again. Checked
     * exceptions are wrapped in an {@link OperationFailedException}; unchecked ones propagate as they are.
     */
    public Outcome execute(Scope scope, IdempotencyKey key, Fingerprint fingerprint, TransactionalOperation operation) {
        Objects.requireNonNull(operation, "operation is null");
        ClaimRequest request = new ClaimRequest(new RecordKey(scope, key), fingerprint, engine.lease(), engine.retention());
        try {
            // Run again whole if the database rolls it back as a deadlock victim: the operation is
            // database-only by contract, so nothing of the lost attempt happened.
            Outcome committed = transactions.inTransaction(c -> {
                Outcome outcome = inTransaction(c, request, operation);
                if (!shouldCommit(outcome)) {
                    c.rollback();
                }
                return outcome;
            });
            // After the commit, never before: a tombstone exists only for a key whose response was stored.
            if (shouldCommit(committed)) {
                engine.writeTombstone(request, ((Outcome.Executed) committed).response().status());
            }
            return committed;
        } catch (SQLException e) {
            throw store.failure("transactional execute", scope, e);
        }
    }

    /**
     * Runs {@code operation} in the <em>caller's</em> transaction: claims the key on
     * {@code transaction}, runs the operation on it and, if the storage policy stores its response,
     * completes the record on it. It never commits, rolls back or changes the auto-commit mode: the
     * caller ends the transaction, and must
     * <ul>
     * <li>commit only if {@link #shouldCommit(Outcome) shouldCommit(outcome)} — an
     *     {@link Outcome.Executed} whose response was stored: the claim, the operation's writes and the
     *     response then become visible together;</li>
     * <li>roll back on every other outcome ({@code Executed} not stored, {@code Replayed}, {@code Expired},
     *     {@code InProgress}, {@code Mismatch}): the operation's writes and the claim vanish, and a
     *     retry runs again; and roll back if this method throws.</li>
     * </ul>
     * What the caller writes in the same transaction after this method returns commits or rolls back
     * with it.
     *
     * <p>{@code transaction} must come from the store's database ({@link #dataSource()}, or a pool of
     * the same database), with auto-commit off, and nothing may commit it while this method runs.
     * Make this call the transaction's first work: the claim is designed to open it (it is what a
     * duplicate waits on), and a dialect may end and restart the transaction while claiming (to drop a
     * lock, or after a deadlock), which would drop anything written before — MariaDB's does, so there a
     * transaction that already touched a table is refused with an {@link IllegalStateException} and
     * left as it was. A duplicate in another
     * transaction blocks on the uncommitted claim until this transaction ends, then replays its
     * response, or acquires the key if it rolled back.
     *
     * <p>Exceptions: unchecked ones of the operation propagate as they are, checked ones wrapped in
     * {@link OperationFailedException}; a database error is a {@link dev.idem.StoreException};
     * a response over the engine's cap is no failure: it is stored as {@link Idem#storable} says
     * (status and headers, an empty body marked {@code Idempotent-Body-Omitted: true}) and the
     * outcome carries it whole.
     *
     * @throws IllegalArgumentException if {@code transaction} is in auto-commit mode (the claim would
     *                                  commit on its own, before the operation)
     * @throws IllegalStateException    on MariaDB, if the transaction already did work
     */
    public Outcome join(Connection transaction, Scope scope, IdempotencyKey key, Fingerprint fingerprint,
                        TransactionalOperation operation) {
        Objects.requireNonNull(transaction, "transaction is null");
        Objects.requireNonNull(operation, "operation is null");
        ClaimRequest request = new ClaimRequest(new RecordKey(scope, key), fingerprint, engine.lease(), engine.retention());
        try {
            if (transaction.getAutoCommit()) {
                throw new IllegalArgumentException("join needs a connection in a transaction, but auto-commit is on"
                        + " (scope '" + scope + "'): the claim would commit before the operation ran");
            }
            return inTransaction(transaction, request, operation);
        } catch (SQLException e) {
            throw store.failure("transactional join", scope, Transactions.inCallersTransaction(e, "the transactional claim"));
        }
    }

    /**
     * Whether the transaction {@link #join} ran in must commit: {@code true} only for an
     * {@link Outcome.Executed} whose response was stored; on any other outcome it must roll back.
     */
    public static boolean shouldCommit(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome is null");
        return outcome instanceof Outcome.Executed executed && executed.stored();
    }

    /**
     * The store's {@code DataSource}: the connection given to {@link #join} must be a transaction on
     * this database (a Spring application gets it with {@code DataSourceUtils.getConnection(dataSource())}
     * inside a transaction of a manager of this {@code DataSource}).
     */
    public DataSource dataSource() {
        return store.dataSource();
    }

    /** Claims, runs and completes on {@code c}; commits and rolls back nothing (the caller decides by the outcome). */
    private Outcome inTransaction(Connection c, ClaimRequest request, TransactionalOperation operation) throws SQLException {
        Scope scope = request.id().scope();
        ClaimOutcome claim = store.claim(c, request);
        if (!(claim instanceof ClaimOutcome.Acquired acquired)) {
            return engine.answer(scope, claim);
        }
        Optional<Outcome> buried = engine.tombstoneAnswer(request, acquired);
        if (buried.isPresent()) {
            return buried.get(); // not Executed: the caller rolls the claim back
        }
        engine.listener().claimed(scope, acquired.attempt());
        StoredResponse response = run(scope, operation, c);
        Optional<StoredResponse> toStore = engine.toStore(response);
        if (toStore.isEmpty()) {
            return new Outcome.Executed(response, false, acquired.attempt());
        }
        store.complete(c, request.id(), acquired.token(), toStore.get(), engine.retention());
        return new Outcome.Executed(response, true, acquired.attempt());
    }

    private StoredResponse run(Scope scope, TransactionalOperation operation, Connection c) {
        StoredResponse response;
        try {
            response = operation.run(c);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new OperationFailedException(scope, e);
        }
        if (response == null) {
            throw new IllegalStateException("operation for scope '" + scope + "' returned null; return a StoredResponse");
        }
        return response;
    }

    /**
     * This mode on a variant of its engine with {@code policy} deciding what is stored; this instance
     * when the engine already has that policy.
     */
    public TransactionalIdem withStoragePolicy(StoragePolicy policy) {
        Objects.requireNonNull(policy, "policy is null");
        return policy == engine.storagePolicy() ? this : new TransactionalIdem(engine.toBuilder().storagePolicy(policy).build(), store);
    }
}
