package dev.idem.spi;

import dev.idem.StoredResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link IdempotencyStore#claim} answers: data only. Exactly one concurrent claimer of a record gets
 * {@link Acquired}; what a caller is told for the others is the engine's ({@link dev.idem.Idem#answer}).
 */
public sealed interface ClaimOutcome {

    /**
     * The caller owns the record until its lease ends. Every later write must carry {@code token}.
     *
     * @param token         fencing token, larger than any earlier owner's of this record
     * @param attempt       1 for a fresh record, +1 per takeover
     * @param recoveryPoint the last checkpoint of an earlier owner, when this is a takeover after one
     */
    record Acquired(long token, int attempt, Optional<RecoveryPoint> recoveryPoint) implements ClaimOutcome {
        public Acquired {
            Objects.requireNonNull(recoveryPoint, "recoveryPoint");
        }

        /** True when an earlier owner's lease expired and this claim took the record over. */
        public boolean takeover() {
            return attempt > 1;
        }
    }

    /** The record completed with the same fingerprint: replay this response. */
    record Replay(StoredResponse response) implements ClaimOutcome {
        public Replay {
            Objects.requireNonNull(response, "response");
        }
    }

    /** Another owner holds a live lease; ask again after {@code retryAfter} (its lease's remainder). */
    record InProgress(Duration retryAfter) implements ClaimOutcome {
        public InProgress {
            Objects.requireNonNull(retryAfter, "retryAfter");
        }
    }

    /** The record exists with another fingerprint: the key was reused for a different request. */
    record Mismatch() implements ClaimOutcome {
    }
}
