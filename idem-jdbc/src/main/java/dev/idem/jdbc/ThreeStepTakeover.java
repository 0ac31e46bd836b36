package dev.idem.jdbc;

import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.Transactions;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The third step of the key store's claim on a dialect that claims in three steps
 * ({@link Dialect#claimsInThreeSteps()}, MariaDB: insert if absent, look up, then this): take over a
 * released, expired or abandoned record with a conditional UPDATE and read the new owner's token in
 * the same transaction.
 */
final class ThreeStepTakeover {
    private final SqlStatements sql;

    ThreeStepTakeover(SqlStatements sql) {
        this.sql = sql;
    }

    /**
     * Takes over a released, expired or abandoned record with one conditional UPDATE and reads the new
     * owner's token in the same transaction; {@code null} if the record is live again or gone.
     */
    ClaimOutcome takeOver(Connection c, ClaimRequest request) throws SQLException {
        boolean own = c.getAutoCommit();
        if (own) {
            c.setAutoCommit(false);
        }
        ClaimOutcome.Acquired acquired;
        try {
            int updated;
            try (PreparedStatement ps = c.prepareStatement(sql.get("claim_takeover_update"))) {
                long retentionMs = request.retention().toMillis();
                ps.setLong(1, retentionMs);
                ps.setLong(2, retentionMs);
                ps.setString(3, request.fingerprint().value());
                ps.setLong(4, request.lease().toMillis());
                ps.setString(5, request.id().scope().value());
                ps.setString(6, request.id().key().value());
                ps.setString(7, request.fingerprint().value());
                updated = ps.executeUpdate();
            }
            if (updated == 0) {
                c.rollback();
                if (own) {
                    c.setAutoCommit(true);
                }
                return null;
            }
            try (PreparedStatement ps = c.prepareStatement(sql.get("claim_taken"))) {
                ps.setString(1, request.id().scope().value());
                ps.setString(2, request.id().key().value());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("the record taken over is missing in the same transaction");
                    }
                    acquired = ClaimRows.acquired(rs, 1);
                }
            }
            if (own) {
                c.commit();
            }
        } catch (SQLException | RuntimeException e) {
            Transactions.rollbackQuietly(c, e);
            Transactions.restoreQuietly(c, own, e);
            throw e;
        }
        if (own) {
            c.setAutoCommit(true);
        }
        return acquired;
    }

    /** Ends the connection's transaction, if it is in one, by rolling it back; the claim was its only work. */
    static void endTransaction(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.rollback();
        }
    }
}
