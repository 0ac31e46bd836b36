package dev.idem.jdbc.support;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The one place where a JDBC component of idem borrows a connection and owns a transaction on it:
 * auto-commit, commit, rollback, restoring the connection, and running the work again when the
 * database rolled it back as a deadlock victim or a serialization failure.
 *
 * <p>Such a failure is the database's way of saying "this transaction lost a race; nothing of it
 * happened; run it again". A transaction idem owns is idem's to run again, so callers never see it
 * unless the bound is spent. Work passed here must therefore be safe to run again from its start on
 * a fresh transaction (each component's work is: it is its transaction's only work, and what it
 * committed before failing is idempotent, e.g. a purge). Work that runs in a caller's transaction
 * never comes here: the caller owns that transaction and is told so by {@link #inCallersTransaction}.
 */
public final class Transactions {
    /** Attempts in all, the first included, before a deadlock or serialization failure is surfaced. */
    public static final int MAX_ATTEMPTS = 8;
    private static final long FIRST_BACKOFF_MICROS = 2_000;
    private static final long MAX_BACKOFF_MICROS = 200_000;

    private final DataSource dataSource;
    private final Isolation isolation;

    /** Transactions at whatever isolation the pool's connections have. */
    public Transactions(DataSource dataSource) {
        this(dataSource, Isolation.ANY);
    }

    /** Transactions at {@code isolation}, whatever the pool's default. */
    public Transactions(DataSource dataSource, Isolation isolation) {
        this.dataSource = dataSource;
        this.isolation = isolation;
    }

    /** Work on a borrowed connection. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} in one transaction: auto-commit off, the work, then a commit (work may also
     * commit or roll back itself, e.g. to end one step before the next); any failure rolls back. The
     * connection's auto-commit is restored before it goes back to the pool; a failure to restore it is
     * recorded as suppressed, never in place of the database's own error.
     */
    public <T> T inTransaction(SqlWork<T> work) throws SQLException {
        return retrying(() -> {
            try (Connection c = dataSource.getConnection()) {
                isolation.enter(c);
                boolean autoCommit = c.getAutoCommit();
                if (autoCommit) {
                    c.setAutoCommit(false);
                }
                T result;
                try {
                    result = work.run(c);
                    c.commit();
                } catch (SQLException | RuntimeException | Error e) {
                    rollbackQuietly(c, e);
                    restoreQuietly(c, autoCommit, e);
                    isolation.leave(c, e);
                    throw e;
                }
                if (autoCommit) {
                    c.setAutoCommit(true);
                }
                isolation.leave(c, null);
                return result;
            }
        });
    }

    /**
     * Runs {@code work} on a connection as the pool hands it out: with auto-commit on, each statement
     * commits by itself (work that needs several statements in one transaction manages that itself);
     * with a pool configured without auto-commit, whatever the work left open is committed at its end.
     */
    public <T> T onConnection(SqlWork<T> work) throws SQLException {
        return retrying(() -> {
            try (Connection c = dataSource.getConnection()) {
                isolation.enter(c);
                T result;
                try {
                    result = c.getAutoCommit() ? work.run(c) : runAndCommit(c, work);
                } catch (SQLException | RuntimeException | Error e) {
                    isolation.leave(c, e);
                    throw e;
                }
                isolation.leave(c, null);
                return result;
            }
        });
    }

    private static <T> T runAndCommit(Connection c, SqlWork<T> work) throws SQLException {
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            rollbackQuietly(c, e);
            throw e;
        }
    }

    /**
     * For work in a caller's transaction that the database rolled back as a deadlock victim or a
     * serialization failure: an exception that says the transaction is the caller's to run again
     * (same SQLState, the driver's exception as cause); any other exception unchanged.
     */
    public static SQLException inCallersTransaction(SQLException e, String what) {
        if (!isRetryable(e)) {
            return e;
        }
        return new SQLTransactionRollbackException(what + " ran in the caller's transaction, which the database rolled back "
                + "(a deadlock or serialization failure: " + FailureText.redacted(e).getMessage() + "); nothing of that transaction "
                + "happened: roll back and run the whole transaction again", e.getSQLState(), e);
    }

    /**
     * Whether the database rolled the transaction back because it lost a race, not because anything
     * was wrong with it: SQLState 40001 (serialization failure; MariaDB's deadlock, 1213, carries it
     * too) or 40P01 (PostgreSQL's deadlock), anywhere in the cause chain (a handler may wrap it).
     */
    public static boolean isRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException e && ("40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState()))) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * Whether the failure says the database could not be reached or did not answer (SQLState class 08,
     * a connection exception; class 57, the server shutting down or cancelling; class 53, out of
     * connections, memory or disk; or, without an SQLState,
     * a connection the pool could not hand out or the driver lost), rather than that something in the
     * work itself was refused. The SQLState decides where there is one: drivers file other states under
     * connection exception classes too (MariaDB's for a trigger's SIGNAL).
     */
    public static boolean isOutage(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException e) {
                String state = e.getSQLState();
                if (state != null ? state.startsWith("08") || state.startsWith("57") || state.startsWith("53")
                        : e instanceof SQLTransientConnectionException || e instanceof SQLRecoverableException
                        || e instanceof SQLTimeoutException || e instanceof SQLNonTransientConnectionException) {
                    return true;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** Rolls back, recording a failure to do so on {@code failure} instead of hiding it. */
    public static void rollbackQuietly(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /** Switches auto-commit back on if it was on, recording a failure to do so on {@code failure}. */
    public static void restoreQuietly(Connection c, boolean autoCommit, Throwable failure) {
        if (!autoCommit) {
            return;
        }
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private interface Attempt<T> {
        T run() throws SQLException;
    }

    private static <T> T retrying(Attempt<T> attempt) throws SQLException {
        for (int n = 1; ; n++) {
            try {
                return attempt.run();
            } catch (SQLException | RuntimeException e) {
                if (!isRetryable(e)) {
                    throw e;
                }
                if (n >= MAX_ATTEMPTS || !pause(n)) {
                    throw gaveUp(e, n);
                }
            }
        }
    }

    private static SQLException gaveUp(Exception last, int attempts) {
        SQLException cause = last instanceof SQLException e ? e : findSqlException(last);
        String state = cause == null ? "40001" : cause.getSQLState();
        return new SQLTransactionRollbackException("the database rolled the transaction back " + attempts
                + " times in a row as a deadlock victim or serialization failure; gave up", state, last);
    }

    private static SQLException findSqlException(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException e) {
                return e;
            }
        }
        return null;
    }

    /** Sleeps with jitter over an exponential ceiling, so transactions that collided do not collide again in step; false if interrupted. */
    private static boolean pause(int failedAttempts) {
        long ceiling = Math.min(MAX_BACKOFF_MICROS, FIRST_BACKOFF_MICROS << Math.min(failedAttempts - 1, 16));
        long micros = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
        try {
            TimeUnit.MICROSECONDS.sleep(micros);
            return true;
        } catch (InterruptedException e) {
            // Asked to stop: surface the failure now rather than run the transaction again.
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
