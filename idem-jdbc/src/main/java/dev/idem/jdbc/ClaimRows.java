package dev.idem.jdbc;

import dev.idem.Fingerprint;
import dev.idem.StoredResponse;
import dev.idem.jdbc.internal.HeaderCodec;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Reads the key store's rows into SPI values: what a claim statement, a lookup or a find answered.
 * The one reader behind the store's own claim, its coalesced claims ({@link CoalescedWrites}) and the
 * MariaDB takeover ({@link ThreeStepTakeover}).
 */
final class ClaimRows {
    private ClaimRows() {
    }

    /**
     * A claim's answer and, for a replay, the record's remaining life in ms on the database's clock
     * (for the response cache; 0 otherwise).
     */
    record Claimed(ClaimOutcome outcome, long expiresIn) {
        static Claimed of(ClaimOutcome outcome) {
            return new Claimed(outcome, 0);
        }
    }

    /**
     * One row of a claim statement, its columns from {@code first} on: token, attempt, recovery phase
     * and state (acquired); then fingerprint, status, headers, body, expires_in, which are set only when
     * the statement answered a completed record (replay, or mismatch if the fingerprint differs).
     */
    static Claimed claimRow(ResultSet rs, int first, ClaimRequest request) throws SQLException {
        String completedFingerprint = rs.getString(first + 4);
        if (completedFingerprint == null) {
            return Claimed.of(acquired(rs, first));
        }
        // A completed, unexpired record: immutable until it expires, so answering from it is final.
        if (!request.fingerprint().value().equals(completedFingerprint)) {
            return Claimed.of(new ClaimOutcome.Mismatch());
        }
        byte[] body = rs.getBytes(first + 7);
        StoredResponse response = StoredResponse.of(rs.getInt(first + 5), HeaderCodec.decode(rs.getString(first + 6)),
                body == null ? new byte[0] : body);
        return new Claimed(new ClaimOutcome.Replay(response), rs.getLong(first + 8));
    }

    /** An acquisition: token, attempt, recovery phase and state in the columns from {@code first} on. */
    static ClaimOutcome.Acquired acquired(ResultSet rs, int first) throws SQLException {
        return new ClaimOutcome.Acquired(rs.getLong(first), rs.getInt(first + 1),
                recoveryPoint(rs.getString(first + 2), rs.getBytes(first + 3)));
    }

    /**
     * The answer of a {@code lookup} row to a claim that did not acquire: mismatch, replay or in
     * progress; {@code null} if the record is not live any more (expired, released, or its lease over),
     * so the claim goes again.
     */
    static Claimed lookupRow(ResultSet rs, ClaimRequest request) throws SQLException {
        if (rs.getBoolean("expired")) {
            return null;
        }
        RecordState state = state(rs.getInt("state"));
        if (state == null) {
            return null;
        }
        if (!request.fingerprint().value().equals(rs.getString("fingerprint"))) {
            return Claimed.of(new ClaimOutcome.Mismatch());
        }
        if (state == RecordState.COMPLETED) {
            return new Claimed(new ClaimOutcome.Replay(response(rs)), rs.getLong("expires_in"));
        }
        long leaseLeft = rs.getLong("lease_left");
        return leaseLeft > 0 ? Claimed.of(new ClaimOutcome.InProgress(Duration.ofMillis(leaseLeft))) : null;
    }

    /** A {@code find} row. */
    static IdempotencyRecord record(RecordKey id, ResultSet rs) throws SQLException {
        RecordState state = state(rs.getInt("state"));
        Optional<StoredResponse> response = state == RecordState.COMPLETED ? Optional.of(response(rs)) : Optional.empty();
        return new IdempotencyRecord(id, Fingerprint.parse(rs.getString("fingerprint")), state,
                rs.getLong("token"), rs.getInt("attempt"),
                Instant.ofEpochMilli(rs.getLong("lease_until")), Instant.ofEpochMilli(rs.getLong("expires_at")),
                recoveryPoint(rs.getString("recovery_phase"), rs.getBytes("recovery_state")), response);
    }

    private static StoredResponse response(ResultSet rs) throws SQLException {
        byte[] body = rs.getBytes("body");
        return StoredResponse.of(rs.getInt("status"), HeaderCodec.decode(rs.getString("headers")), body == null ? new byte[0] : body);
    }

    static Optional<RecoveryPoint> recoveryPoint(String phase, byte[] state) {
        return phase == null ? Optional.empty() : Optional.of(RecoveryPoint.of(phase, state == null ? new byte[0] : state));
    }

    /** 0 and 1 are live states; 2 (released) reads as absent. */
    static RecordState state(int code) {
        switch (code) {
            case 0:
                return RecordState.IN_PROGRESS;
            case 1:
                return RecordState.COMPLETED;
            default:
                return null;
        }
    }
}
