package dev.idem.jdbc;

import dev.idem.jdbc.support.SqlStatements;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The claim of a key store whose table is partitioned by expiry ({@link RetentionPartitions}), where
 * no unique index can hold (scope, idem_key) alone. In one transaction, per round: a plain read answers
 * a live record (replay, in progress, mismatch) without a lock; otherwise a transaction-scoped lock on
 * the key, then an insert only if no partition holds the key, else the conditional takeover. Every
 * claimer of a key takes the lock before it looks for the key under it, so of two concurrent claims
 * for a new key (whatever partitions their expiries fall in) the second sees the first's row.
 */
final class PartitionedClaims {
    /** Statements this claim runs, checked when the store is built. */
    static final List<String> STATEMENTS = List.of("partitioned_lock", "partitioned_insert", "partitioned_takeover");
    private static final int MAX_ROUNDS = 16;

    /** The store's read of a live record: its answer, or null when the record is absent or not live. */
    interface Lookup {
        ClaimRows.Claimed live(Connection c, ClaimRequest request) throws SQLException;
    }

    private final SqlStatements sql;
    /** MariaDB's takeover (conditional UPDATE, then a read of the new token), or null for the one-statement takeover (PostgreSQL). */
    private final ThreeStepTakeover threeStep;

    PartitionedClaims(SqlStatements sql, ThreeStepTakeover threeStep) {
        this.sql = sql;
        this.threeStep = threeStep;
    }

    /** @param c a connection in a transaction (the lock lasts to its end) */
    ClaimRows.Claimed claim(Connection c, ClaimRequest request, Lookup lookup) throws SQLException {
        String scope = request.id().scope().value();
        String key = request.id().key().value();
        long leaseMs = request.lease().toMillis();
        // A lease never outlives the record's expiry here: a partition past its bound holds nothing live.
        long keepMs = Math.max(request.retention().toMillis(), leaseMs);
        boolean locked = false;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            ClaimRows.Claimed live = lookup.live(c, request);
            if (live != null) {
                return live;
            }
            if (!locked) {
                try (PreparedStatement ps = c.prepareStatement(sql.get("partitioned_lock"))) {
                    ps.setString(1, scope.length() + ":" + scope + key);
                    ps.execute();
                }
                locked = true;
            }
            String fingerprint = request.fingerprint().value();
            ClaimOutcome acquired = acquire(c, request, "partitioned_insert", scope, key, fingerprint, leaseMs, keepMs, scope, key);
            if (acquired == null && threeStep == null) {
                acquired = acquire(c, request, "partitioned_takeover", fingerprint, leaseMs, keepMs, keepMs, scope, key, fingerprint);
            } else if (acquired == null) {
                acquired = threeStep.takeOver(c, request);
            }
            if (acquired != null) {
                return ClaimRows.Claimed.of(acquired);
            }
            if (threeStep != null) {
                // InnoDB: the next round's plain read needs a new snapshot (REPEATABLE READ keeps the first); the
                // claim is its transaction's only work, so ending it loses nothing, and gives up the bucket's lock.
                ThreeStepTakeover.endTransaction(c);
                locked = false;
            }
            // Live after all (completed or taken meanwhile): the next round's read answers it.
        }
        throw new SQLException("claim did not settle after " + MAX_ROUNDS + " rounds of concurrent changes");
    }

    /** Runs an acquiring statement with {@code params} in order: the new owner's row, or null. */
    private ClaimOutcome acquire(Connection c, ClaimRequest request, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? ClaimRows.claimRow(rs, 1, request).outcome() : null;
            }
        }
    }
}
