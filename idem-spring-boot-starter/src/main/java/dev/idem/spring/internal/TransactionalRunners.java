package dev.idem.spring.internal;

import dev.idem.Idem;
import dev.idem.servlet.RequestRunner;

/**
 * Makes the {@link RequestRunner} of an {@code @Idempotent(transactional = true)} endpoint, or fails
 * with a message naming the endpoint; called once per endpoint while the application starts.
 */
@FunctionalInterface
public interface TransactionalRunners {

    /**
     * @param idem  the endpoint's engine (its store, retention, storage policy, listener and response cap)
     * @param where the endpoint, {@code Class#method}, for messages
     * @throws IllegalStateException if the endpoint cannot run transactionally here
     */
    RequestRunner runner(Idem idem, String where);

    /** For an application without spring-jdbc: every transactional endpoint fails startup. */
    static TransactionalRunners unavailable() {
        return (idem, where) -> {
            throw new IllegalStateException("@Idempotent(transactional = true) on " + where + " needs spring-jdbc on the"
                    + " class path (spring-boot-starter-jdbc), to share Spring's transaction with the handler");
        };
    }
}
