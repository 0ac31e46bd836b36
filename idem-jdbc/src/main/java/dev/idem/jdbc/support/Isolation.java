package dev.idem.jdbc.support;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The isolation level a component's own statements are written for, made to hold whatever the pool
 * hands out: a database or pool configured with a stricter default (REPEATABLE READ or SERIALIZABLE
 * on PostgreSQL, which some teams choose for their own code) would otherwise turn idem's concurrent
 * claims into serialization failures, and a laxer one would change what its reads see.
 *
 * <p>The pool's default is read once, when the component is built; only when it differs does each
 * borrow set the level and put the pool's back afterwards (two round trips), so a pool already at the
 * right level pays nothing.
 */
public final class Isolation {
    /** Whatever the connection has: for a database with one level (SQLite) or work that is the caller's. */
    public static final Isolation ANY = new Isolation(-1, -1);

    private final int required;
    private final int poolDefault;

    private Isolation(int required, int poolDefault) {
        this.required = required;
        this.poolDefault = poolDefault;
    }

    /**
     * @param required a {@code Connection.TRANSACTION_*} level, or -1 for any
     * @param sample   a connection from the pool, showing its default
     */
    public static Isolation require(int required, Connection sample) throws SQLException {
        if (required < 0) {
            return ANY;
        }
        return new Isolation(required, sample.getTransactionIsolation());
    }

    /** Whether borrowed connections must be switched (the pool's default is another level). */
    boolean switches() {
        return required >= 0 && required != poolDefault;
    }

    /** Sets the required level on a connection just borrowed from the pool, before its transaction starts. */
    void enter(Connection c) throws SQLException {
        if (switches()) {
            c.setTransactionIsolation(required);
        }
    }

    /** Puts the pool's level back before the connection returns; a failure is recorded on {@code failure} if there is one. */
    void leave(Connection c, Throwable failure) throws SQLException {
        if (!switches()) {
            return;
        }
        try {
            c.setTransactionIsolation(poolDefault);
        } catch (SQLException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }

    /**
     * For a connection that is not borrowed through {@link Transactions} (one kept out of the pool, or
     * one from another pool), whose default was never read: asks it, and sets the required level if it
     * has another.
     *
     * @return the level it had, for the caller to put back, or -1 if it was left unchanged
     */
    public int setOn(Connection c) throws SQLException {
        if (required < 0) {
            return -1;
        }
        int had = c.getTransactionIsolation();
        if (had == required) {
            return -1;
        }
        c.setTransactionIsolation(required);
        return had;
    }

    @Override
    public String toString() {
        return required < 0 ? "any isolation" : "isolation " + required + (switches() ? " (pool default " + poolDefault + ")" : "");
    }
}
