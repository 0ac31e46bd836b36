package dev.idem.demo.payments;

import dev.idem.jdbc.SqlFailures;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the service decides what a failed statement on its own tables answers, by idem's
 * rule ({@link SqlFailures#isTransient}). A failure that passes (the database out of reach or ending the
 * session, e.g. {@code pg_terminate_backend}; out of resources; a deadlock; the pool's timeout) is a
 * 503 with {@code Retry-After}: a client reads a 500 as final and would give up on a payment that a
 * retry completes. Anything else (a bug, a missing table) stays an unexpected failure, a 500.
 */
final class DatabaseFailures {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseFailures.class);

    private DatabaseFailures() {
    }

    /** @param what what the statement was to do, for the answer's detail and the log ("create the payment") */
    static RuntimeException of(String what, SQLException e) {
        if (passes(e)) {
            // The class and state only: a driver's message may quote a value.
            LOG.warn("cannot {}: {} (SQLState {}); answered 503", what, e.getClass().getName(), e.getSQLState());
            return PaymentProblem.databaseUnavailable(what);
        }
        // The class and state only here too; the driver's message stays on the cause, for the log.
        return new IllegalStateException("cannot " + what + ": " + e.getClass().getName() + " (SQLState " + e.getSQLState() + ")", e);
    }

    static boolean passes(SQLException failure) {
        return SqlFailures.isTransient(failure);
    }
}
