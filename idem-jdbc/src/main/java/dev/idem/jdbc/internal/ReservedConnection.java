package dev.idem.jdbc.internal;

import dev.idem.jdbc.support.Isolation;
import dev.idem.jdbc.support.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;

/**
 * One connection kept out of the pool for work that must never queue behind the application's
 * (lease renewals): borrowed once, when the first owner that needs it starts (on that owner's thread,
 * while the pool can still give it), and kept. A call on it is bounded by a network timeout; a
 * connection that failed is closed and borrowed again on the next call. If a call is still running
 * on it (a stalled call), the next call gets a connection of its own for that call, so one slow call
 * never holds up the next.
 */
public final class ReservedConnection {
    private final DataSource source;
    private final Isolation isolation;
    private final ReentrantLock lock = new ReentrantLock();
    /** Written under {@link #lock}; read without it by {@link #reserve()}'s fast path. */
    private volatile Connection connection;

    /** @param isolation the level the work needs; set on the kept connection once, when it is borrowed */
    public ReservedConnection(DataSource source, Isolation isolation) {
        this.source = source;
        this.isolation = isolation;
    }

    /**
     * Borrows the connection now if it is not held yet. Runs before every owner's work, so when the
     * connection is held it returns without taking the lock (a renewal in progress holds it).
     */
    public void reserve() throws SQLException {
        if (connection != null) {
            return;
        }
        lock.lock();
        try {
            if (connection == null) {
                connection = borrow();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A connection for keeping, at the work's isolation (set once: it does not go back to the pool until it fails). */
    private Connection borrow() throws SQLException {
        Connection c = source.getConnection();
        try {
            isolation.setOn(c);
            return c;
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * Runs {@code work} in a transaction on the reserved connection (or, while another call holds it,
     * on one borrowed for this call), with every round trip bounded by {@code timeoutMillis}.
     */
    public <T> T inTransaction(long timeoutMillis, Transactions.SqlWork<T> work) throws SQLException {
        if (!lock.tryLock()) {
            try (Connection own = source.getConnection()) {
                return runOnOwn(own, timeoutMillis, work);
            }
        }
        try {
            if (connection == null) {
                connection = borrow();
            }
            try {
                return run(connection, timeoutMillis, work);
            } catch (SQLException | RuntimeException e) {
                discard(e);
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** On a connection borrowed for one call: at the work's isolation, and the connection's own put back after. */
    private <T> T runOnOwn(Connection own, long timeoutMillis, Transactions.SqlWork<T> work) throws SQLException {
        int had = isolation.setOn(own);
        try {
            return run(own, timeoutMillis, work);
        } finally {
            if (had >= 0) {
                try {
                    own.setTransactionIsolation(had);
                } catch (SQLException e) {
                    // Broken: the pool validates or discards it; the work's own outcome stands.
                }
            }
        }
    }

    private static <T> T run(Connection c, long timeoutMillis, Transactions.SqlWork<T> work) throws SQLException {
        int before = networkTimeout(c, timeoutMillis);
        boolean autoCommit = c.getAutoCommit();
        if (autoCommit) {
            c.setAutoCommit(false);
        }
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            Transactions.rollbackQuietly(c, e);
            throw e;
        } finally {
            restoreQuietly(c, autoCommit, before);
        }
    }

    /** Puts the connection back as it was; a connection that cannot be is discarded by the caller's failure path or the next call. */
    private static void restoreQuietly(Connection c, boolean autoCommit, int networkTimeout) {
        try {
            if (autoCommit) {
                c.setAutoCommit(true);
            }
            if (networkTimeout >= 0) {
                c.setNetworkTimeout(Runnable::run, networkTimeout);
            }
        } catch (SQLException e) {
            // Broken: the work's own outcome stands; a broken connection fails the next call, which discards it.
        }
    }

    /** Sets the timeout where the driver supports it (not SQLite: in-process); returns the old one, or -1. */
    private static int networkTimeout(Connection c, long timeoutMillis) throws SQLException {
        try {
            int before = c.getNetworkTimeout();
            c.setNetworkTimeout(Runnable::run, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutMillis)));
            return before;
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
            return -1;
        }
    }

    /** A failed call may have left the connection broken or mid-protocol: give it back and borrow anew next time. */
    private void discard(Exception failure) {
        Connection broken = connection;
        connection = null;
        try {
            broken.close();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }
}
