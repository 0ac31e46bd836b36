package dev.idem.jdbc.internal;

import dev.idem.jdbc.support.FailureText;
import dev.idem.jdbc.support.Transactions;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs start-up work (migrations) again while the database is only briefly out of reach: a service
 * starting during a database restart, a failover or a burst of refused connections should wait for it
 * for a bounded time, not exit. Only failures of reaching the database are retried; an error in the
 * work itself (bad SQL, a missing privilege) fails at once.
 */
public final class StartupRetry {
    private static final long FIRST_PAUSE_MILLIS = 100;
    private static final long MAX_PAUSE_MILLIS = 5_000;

    private StartupRetry() {
    }

    /** Start-up work on the database. */
    @FunctionalInterface
    public interface Work {
        void run() throws SQLException;
    }

    /**
     * Runs {@code work}, and again after a pause (doubling from 100 ms to 5 s, with jitter) while it fails
     * to reach the database and {@code budget} has time left.
     *
     * @return the attempts made
     * @throws SQLException the last failure: the work's own error at once, or the database's after the budget,
     *                      with a message saying how long it was tried; earlier failures are suppressed on it
     */
    public static int run(String what, Duration budget, Work work) throws SQLException {
        long deadline = System.nanoTime() + budget.toNanos();
        long pause = FIRST_PAUSE_MILLIS;
        for (int attempt = 1; ; attempt++) {
            try {
                work.run();
                return attempt;
            } catch (SQLException e) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (!unreachable(e)) {
                    throw e;
                }
                if (left <= 0 || !sleep(Math.min(left, ThreadLocalRandom.current().nextLong(pause / 2, pause + 1)))) {
                    throw gaveUp(what, budget, attempt, e);
                }
                pause = Math.min(MAX_PAUSE_MILLIS, pause * 2);
            }
        }
    }

    /**
     * Whether the failure is about reaching the database rather than the work: a connection refused,
     * dropped or timed out (SQLState class 08, PostgreSQL's 57P0x, the driver's transient and recoverable exceptions, a pool
     * that gave no connection in time), or a transaction the database rolled back for a race.
     */
    static boolean unreachable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException || t instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException s && s.getSQLState() != null && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("57P"))) {
                return true; // 57P01-03: PostgreSQL shutting down, terminated by an administrator, or not yet accepting connections
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Transactions.isRetryable(e);
    }

    private static SQLException gaveUp(String what, Duration budget, int attempts, SQLException last) {
        SQLException failure = new SQLException(what + ": the database could not be reached in " + attempts + " attempts over "
                + budget.toSeconds() + " s; last error: " + FailureText.redacted(last).getMessage(), last.getSQLState(), last);
        return failure;
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(Math.max(1, millis));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
