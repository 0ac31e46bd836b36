package dev.idem.spring.internal;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Operation;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoragePolicy;
import dev.idem.StoreException;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.TransactionalIdem;
import dev.idem.servlet.RequestRunner;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ReflectionUtils;

/**
 * Runs a transactional endpoint in a Spring transaction: a {@link TransactionTemplate} (propagation
 * {@code REQUIRED}) over the application's {@link PlatformTransactionManager} of the store's
 * {@link DataSource}; inside it, the transaction's connection ({@link DataSourceUtils#getConnection})
 * goes to {@link TransactionalIdem#join}, and the transaction is marked rollback-only unless
 * {@link TransactionalIdem#shouldCommit} says commit. The handler's own JDBC work finds the same
 * connection bound to the thread, so it is part of that transaction.
 *
 * <p>The manager is chosen once per {@code DataSource}: the first (in bean order) that manages it —
 * whose resource is that {@code DataSource} ({@code DataSourceTransactionManager},
 * {@code JdbcTransactionManager}), or whose {@code getDataSource()} returns it
 * ({@code JpaTransactionManager}, {@code HibernateTransactionManager}: they bind the JDBC connection
 * of their session to it). Managers are only inspected, never asked to begin a transaction, so one
 * for another resource (a broker's) is not touched.
 */
public final class SpringTransactionalRunners implements TransactionalRunners {
    private final ObjectProvider<PlatformTransactionManager> managers;
    private final Map<DataSource, TransactionTemplate> templates = new ConcurrentHashMap<>();

    public SpringTransactionalRunners(ObjectProvider<PlatformTransactionManager> managers) {
        this.managers = Objects.requireNonNull(managers, "managers is null");
    }

    @Override
    public RequestRunner runner(Idem idem, String where) {
        if (!(idem.store() instanceof JdbcIdempotencyStore)) {
            throw new IllegalStateException("@Idempotent(transactional = true) on " + where + " needs the JDBC store"
                    + " (JdbcIdempotencyStore), whose claim can share the handler's database transaction; the"
                    + " IdempotencyStore is a " + idem.store().getClass().getName());
        }
        TransactionalIdem tx = TransactionalIdem.of(idem);
        DataSource dataSource = tx.dataSource();
        return new Runner(tx, dataSource, template(dataSource, "@Idempotent(transactional = true) on " + where, "the idem store's"), false,
                idem.retention());
    }

    /**
     * The runner of an {@code @IdempotentMethod} called inside its caller's transaction, which the
     * template joins: the claim, the method's writes and the stored result commit or roll back with
     * that transaction. Unlike an endpoint's, a replay leaves the caller's transaction as it is: the
     * claim that found a completed record wrote nothing, and the caller's own work must not fail
     * because the method had run before.
     *
     * @param where the method, {@code "@IdempotentMethod on Class#method"}, for messages
     * @throws IllegalArgumentException if {@code idem}'s store is not the JDBC store
     */
    public RequestRunner joiningRunner(Idem idem, String where) {
        TransactionalIdem tx = TransactionalIdem.of(idem);
        DataSource dataSource = tx.dataSource();
        return new Runner(tx, dataSource, template(dataSource, where, "the idem store's"), true, idem.retention());
    }

    /**
     * The transaction template ({@code REQUIRED}) over the manager of {@code dataSource}, for every
     * part of idem that runs work in Spring's transaction on that database: transactional endpoints
     * and idempotent listener methods.
     *
     * @param user  what needs it, for the message ({@code "@IdempotentListener on Bean#method"})
     * @param owner whose DataSource it is, for the message ({@code "the inbox's"})
     * @throws IllegalStateException if no transaction manager binds {@code dataSource}
     */
    public TransactionTemplate template(DataSource dataSource, String user, String owner) {
        return templates.computeIfAbsent(dataSource, ds -> new TransactionTemplate(manager(ds, user, owner)));
    }

    private PlatformTransactionManager manager(DataSource dataSource, String user, String owner) {
        List<PlatformTransactionManager> candidates = managers.orderedStream().collect(Collectors.toList());
        for (PlatformTransactionManager candidate : candidates) {
            if (manages(candidate, dataSource)) {
                return candidate;
            }
        }
        throw new IllegalStateException(user + " needs a PlatformTransactionManager"
                + " whose transactions bind " + owner + " DataSource (such as the JdbcTransactionManager of"
                + " spring-boot-starter-jdbc); found " + (candidates.isEmpty() ? "no PlatformTransactionManager bean"
                : candidates.size() + " for other resources: " + candidates.stream().map(m -> m.getClass().getName())
                .collect(Collectors.joining(", "))));
    }

    /** Whether {@code manager}'s transactions bind a connection of {@code dataSource} to the thread. */
    private static boolean manages(PlatformTransactionManager manager, DataSource dataSource) {
        if (manager instanceof ResourceTransactionManager resource && resource.getResourceFactory() == dataSource) {
            return true;
        }
        // JPA and Hibernate managers (spring-orm, optional here) expose the DataSource they bind connections to.
        Method getter = ReflectionUtils.findMethod(manager.getClass(), "getDataSource");
        if (getter == null || getter.getParameterCount() != 0 || !DataSource.class.isAssignableFrom(getter.getReturnType())) {
            return false;
        }
        return ReflectionUtils.invokeMethod(getter, manager) == dataSource;
    }

    /**
     * @param replayKeepsTransaction whether a replay leaves the transaction to commit (else it is marked rollback-only)
     * @param keyRetention           the engine's retention, advertised to clients
     */
    private record Runner(TransactionalIdem tx, DataSource dataSource, TransactionTemplate template,
                          boolean replayKeepsTransaction, Duration keyRetention) implements RequestRunner {
        /**
         * As the contract asks, a failure of the database behind the transaction — no connection for
         * it, a commit or rollback that failed — reaches the filter as a {@link StoreException}: the
         * claim or the stored response may not be there, and the answer is a 503, not a final one.
         */
        @Override
        public RequestRunner withStoragePolicy(StoragePolicy policy) {
            TransactionalIdem variant = tx.withStoragePolicy(policy);
            return variant == tx ? this : new Runner(variant, dataSource, template, replayKeepsTransaction, keyRetention);
        }

        @Override
        public Optional<Duration> retention() {
            return Optional.of(keyRetention);
        }

        @Override
        public Outcome run(Scope scope, IdempotencyKey key, Fingerprint fingerprint, Operation handler) {
            try {
                return inTransaction(scope, key, fingerprint, handler);
            } catch (TransactionException | CannotGetJdbcConnectionException e) {
                throw StoreException.failed("Spring transaction", "transactional request", scope, e);
            }
        }

        private Outcome inTransaction(Scope scope, IdempotencyKey key, Fingerprint fingerprint, Operation handler) {
            return template.execute(status -> {
                Connection connection = DataSourceUtils.getConnection(dataSource);
                try {
                    // No Execution: the whole request is one transaction, there is nothing to resume.
                    Outcome outcome = tx.join(connection, scope, key, fingerprint, c -> handler.run(null));
                    boolean keep = replayKeepsTransaction && outcome instanceof Outcome.Replayed;
                    if (!TransactionalIdem.shouldCommit(outcome) && !keep) {
                        status.setRollbackOnly();
                    }
                    return outcome;
                } finally {
                    DataSourceUtils.releaseConnection(connection, dataSource);
                }
            });
        }

        @Override
        public String toString() {
            return "transactional runner [" + template.getTransactionManager().getClass().getName() + "]";
        }
    }
}
