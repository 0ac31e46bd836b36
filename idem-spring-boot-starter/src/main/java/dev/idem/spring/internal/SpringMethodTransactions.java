package dev.idem.spring.internal;

import dev.idem.Idem;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.servlet.RequestRunner;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * {@link MethodTransactions} on Spring's transaction synchronization: a call joins its caller's
 * transaction when one is active at entry (idem's advice runs before the method's own transaction
 * interceptor, so any transaction active then is the caller's) and the method's propagation takes
 * part in it. A joined call runs through {@link SpringTransactionalRunners#joiningRunner} when the
 * store is the JDBC store and the transaction holds a connection of its {@code DataSource}.
 */
final class SpringMethodTransactions implements MethodTransactions {
    private final BeanFactory beans;
    private final boolean springJdbc;
    private final SingletonSupplier<TransactionAttributeSource> attributes;
    private final SingletonSupplier<SpringTransactionalRunners> runners;
    private final Map<MethodPolicy, RequestRunner> joiningRunners = new ConcurrentHashMap<>();

    SpringMethodTransactions(BeanFactory beans, ClassLoader classLoader) {
        this.beans = beans;
        this.springJdbc = ClassUtils.isPresent("org.springframework.jdbc.datasource.DataSourceUtils", classLoader);
        // The application's (Spring's @EnableTransactionManagement registers one), else the annotations read directly.
        this.attributes = SingletonSupplier.of(() -> beans.getBeanProvider(TransactionAttributeSource.class)
                .getIfUnique(AnnotationTransactionAttributeSource::new));
        this.runners = SingletonSupplier.of(() -> new SpringTransactionalRunners(beans.getBeanProvider(PlatformTransactionManager.class)));
    }

    @Override
    public void check(MethodPolicy policy, Idem engine) {
        if (propagation(policy) == TransactionDefinition.PROPAGATION_MANDATORY && !(engine.store() instanceof JdbcIdempotencyStore)) {
            throw new IllegalStateException(policy.where() + " is @Transactional(propagation = MANDATORY): it always runs in its"
                    + " caller's transaction, which commits after the method returns, and the store ("
                    + engine.store().getClass().getName() + ") cannot complete the record in that transaction; use"
                    + " propagation REQUIRED or REQUIRES_NEW and call it outside a transaction, or use the JDBC store on the"
                    + " transaction's DataSource");
        }
    }

    @Override
    public RequestRunner joined(MethodPolicy policy, Idem engine) {
        if (!TransactionSynchronizationManager.isActualTransactionActive() || !takesPart(propagation(policy))) {
            return null;
        }
        if (springJdbc && engine.store() instanceof JdbcIdempotencyStore jdbc
                && TransactionSynchronizationManager.hasResource(jdbc.dataSource())) {
            return joiningRunners.computeIfAbsent(policy, p -> runners.get().joiningRunner(engine, p.where()));
        }
        throw new IllegalStateException(policy.where() + " was called inside a transaction that is already open (its"
                + " caller's), which commits after the method returns; the record must commit with it, but "
                + why(engine)
                + ". Nothing ran. Call it outside the transaction, give it @Transactional(propagation = REQUIRES_NEW) so it"
                + " commits on its own before idem stores its result, or use the JDBC store on the transaction's DataSource");
    }

    private String why(Idem engine) {
        if (!(engine.store() instanceof JdbcIdempotencyStore)) {
            return "the store (" + engine.store().getClass().getName() + ") cannot share a database transaction";
        }
        return springJdbc ? "that transaction holds no connection of the JDBC store's DataSource"
                : "sharing it needs spring-jdbc (spring-boot-starter-jdbc) on the class path";
    }

    /** Whether a method with this propagation runs in a transaction already active at entry. */
    private static boolean takesPart(int propagation) {
        return propagation != TransactionDefinition.PROPAGATION_REQUIRES_NEW
                && propagation != TransactionDefinition.PROPAGATION_NOT_SUPPORTED
                && propagation != TransactionDefinition.PROPAGATION_NEVER;
    }

    /** The method's propagation; {@code REQUIRED} without {@code @Transactional} (its JDBC work joins whatever is open). */
    private int propagation(MethodPolicy policy) {
        TransactionAttribute attribute = attributes.obtain().getTransactionAttribute(policy.method(), policy.type());
        return attribute == null ? TransactionDefinition.PROPAGATION_REQUIRED : attribute.getPropagationBehavior();
    }

    @Override
    public String toString() {
        return "Spring transactions [" + beans.getClass().getSimpleName() + "]";
    }
}
