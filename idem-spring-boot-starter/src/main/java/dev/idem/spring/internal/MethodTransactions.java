package dev.idem.spring.internal;

import dev.idem.Idem;
import dev.idem.servlet.RequestRunner;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * How an {@code @IdempotentMethod} call relates to Spring transactions. idem's advice wraps the
 * method's own transaction interceptor, so a call that starts its own transaction completes its
 * record after that transaction committed. A call that joins a transaction already open at entry
 * (its caller's) would complete before that transaction commits, so it runs in the JDBC store's
 * transactional mode on the caller's transaction instead, or is refused.
 */
public interface MethodTransactions {

    /** Without spring-tx there are no Spring transactions: every call runs on its own. */
    MethodTransactions NONE = new MethodTransactions() {
        @Override
        public void check(MethodPolicy policy, Idem engine) {
        }

        @Override
        public RequestRunner joined(MethodPolicy policy, Idem engine) {
            return null;
        }
    };

    /** The application's transactions, if spring-tx is on the class path. */
    static MethodTransactions of(BeanFactory beans, ClassLoader classLoader) {
        return ClassUtils.isPresent("org.springframework.transaction.support.TransactionSynchronizationManager", classLoader)
                ? new SpringMethodTransactions(beans, classLoader) : NONE;
    }

    /**
     * At startup: refuses what can never work, e.g. propagation {@code MANDATORY} (always in the
     * caller's transaction) on a store that cannot share a database transaction.
     *
     * @throws IllegalStateException naming the method and the fix
     */
    void check(MethodPolicy policy, Idem engine);

    /**
     * The runner for a call that joins the caller's transaction, or {@code null} if this call runs
     * on its own (no transaction at entry, or the method suspends it: {@code REQUIRES_NEW},
     * {@code NOT_SUPPORTED}, {@code NEVER}).
     *
     * @throws IllegalStateException before anything ran, naming the method and the fix, if the call
     *                               joins a transaction the store cannot share
     */
    RequestRunner joined(MethodPolicy policy, Idem engine);
}
