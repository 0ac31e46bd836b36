package dev.idem.demo.payments;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the service decides what a failed statement on its own tables answers. A failure that
 * passes — the database out of reach or ending the session (SQLState classes 08 and 57: a lost
 * connection, {@code pg_terminate_backend}), out of resources (53), a deadlock or serialization failure
 * (40001, 40P01), or, without an SQLState, the pool's timeout and the driver's transient and
 * lost-connection exceptions — is a 503 with {@code Retry-After}: a client reads a 500 as final and
 * would give up on a payment that a retry completes. Anything else (a bug, a missing table) stays an
 * unexpected failure, a 500.
 */
final class DatabaseFailures {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseFailures.class);
    private static final List<String> PASSING_CLASSES = List.of("08", "57", "53");
    private static final List<String> PASSING_STATES = List.of("40001", "40P01");

    private DatabaseFailures() {
    }

    /** @param what what the statement was to do, for the answer's detail and the log ("create the payment") */
    static RuntimeException of(String what, SQLException e) {
        if (passes(e)) {
            // The class and state only: a driver's message may quote a value.
            LOG.warn("cannot {}: {} (SQLState {}); answered 503", what, e.getClass().getName(), e.getSQLState());
            return PaymentProblem.databaseUnavailable(what);
        }
        return new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
    }

    static boolean passes(SQLException failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e && passesItself(e)) {
                return true;
            }
        }
        return false;
    }

    private static boolean passesItself(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return e instanceof SQLTransientException || e instanceof SQLRecoverableException || e instanceof SQLNonTransientConnectionException;
        }
        return PASSING_STATES.contains(state) || state.length() >= 2 && PASSING_CLASSES.contains(state.substring(0, 2));
    }
}
