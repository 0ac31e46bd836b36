package dev.idem.jdbc.support;

import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.jdbc.support.Transactions.SqlWork;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A JDBC component's calls into its database as its API promises them: the work runs through
 * {@link Transactions}, and a driver failure surfaces as a {@link StoreException} naming the
 * component and the operation, with the driver's message {@linkplain FailureText#redacted redacted}. One
 * place for that wrapping, so every component reports a failure the same way.
 */
public final class StoreCalls {
    private final Transactions transactions;
    private final String component;

    /** @param component how failures name the component, e.g. "PostgreSQL inbox" */
    public StoreCalls(Transactions transactions, String component) {
        this.transactions = transactions;
        this.component = component;
    }

    /** {@link Transactions#onConnection}, a failure as a {@link StoreException} naming {@code operation}. */
    public <T> T onConnection(String operation, SqlWork<T> work) {
        return onConnection(operation, null, work);
    }

    /** {@link #onConnection(String, SqlWork)} for a key's {@code scope}, which the failure names. */
    public <T> T onConnection(String operation, Scope scope, SqlWork<T> work) {
        try {
            return transactions.onConnection(work);
        } catch (SQLException e) {
            throw failure(operation, scope, e);
        }
    }

    /** {@link Transactions#inTransaction}, a failure as a {@link StoreException} naming {@code operation}. */
    public <T> T inTransaction(String operation, SqlWork<T> work) {
        try {
            return transactions.inTransaction(work);
        } catch (SQLException e) {
            throw failure(operation, null, e);
        }
    }

    /**
     * {@link Transactions#inTransaction} for work that judges a driver failure itself: a coalesced batch
     * of several callers' writes fails them all on an outage, but runs each alone after any other failure.
     */
    public <T> T inTransactionJudged(SqlWork<T> work) throws SQLException {
        return transactions.inTransaction(work);
    }

    /**
     * {@link #inTransactionJudged} for work that is one statement: run as the pool hands the
     * connection out, so under auto-commit the statement commits by itself before it answers, without
     * switching auto-commit off and on around it (a round trip each on MariaDB's driver).
     */
    public <T> T oneStatementJudged(SqlWork<T> work) throws SQLException {
        return transactions.onConnection(work);
    }

    /** Runs the component's migrations on a connection of their own (they take their own lock). */
    public void migrate(Migrator migrator) {
        onConnection("migrate", c -> {
            migrator.migrate(c);
            return null;
        });
    }

    /** The failure of {@code operation} (for {@code scope}, or null), the driver's message redacted. */
    public StoreException failure(String operation, Scope scope, SQLException e) {
        return StoreException.failed(component, operation, scope, FailureText.redacted(e));
    }

    /**
     * What a builder learns on one connection of {@code dataSource} (the dialect, the isolation); a
     * failure to connect as a {@link StoreException} naming {@code component}.
     */
    public static <T> T atBuild(DataSource dataSource, String component, SqlWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw StoreException.failed(component, "connect", null, FailureText.redacted(e));
        }
    }
}
