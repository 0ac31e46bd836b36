package dev.idem.spi;

import dev.idem.Fingerprint;
import dev.idem.StoredResponse;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of a live record, as {@link IdempotencyStore#find} reads it. Times are the store's
 * clock.
 */
public record IdempotencyRecord(
        RecordKey id,
        Fingerprint fingerprint,
        RecordState state,
        long token,
        int attempt,
        Instant leaseUntil,
        Instant expiresAt,
        Optional<RecoveryPoint> recoveryPoint,
        Optional<StoredResponse> response) {

    public IdempotencyRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(leaseUntil, "leaseUntil");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(recoveryPoint, "recoveryPoint");
        Objects.requireNonNull(response, "response");
        if ((state == RecordState.COMPLETED) != response.isPresent()) {
            throw new IllegalArgumentException("a record has a response exactly when it is COMPLETED");
        }
    }
}
