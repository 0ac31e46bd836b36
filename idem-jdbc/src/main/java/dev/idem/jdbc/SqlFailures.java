package dev.idem.jdbc;

import dev.idem.jdbc.support.Transactions;

/**
 * The rule idem uses to tell a database failure that passes from one that will not, for an
 * application's own statements beside idem's: answer the first as "retry later" (HTTP 503 with
 * {@code Retry-After}, a message left for redelivery) and the second as the error it is. A client
 * reads a 500 as final and gives up on work that a retry would finish.
 */
public final class SqlFailures {
    private SqlFailures() {
    }

    /**
     * Whether a retry later may succeed with nothing changed, judged anywhere in the cause chain: the
     * database lost a race and rolled the transaction back (SQLState 40001, 40P01), could not be reached
     * or ended the session (class 08, class 57: {@code pg_terminate_backend}, a shutdown), ran out of
     * resources (class 53: too many connections, memory, disk), or, without an SQLState, the pool had no
     * connection to hand out in time or the driver lost its connection. A constraint violation, a
     * syntax error or a missing table is not transient.
     */
    public static boolean isTransient(Throwable failure) {
        return failure != null && (Transactions.isRetryable(failure) || Transactions.isOutage(failure));
    }
}
