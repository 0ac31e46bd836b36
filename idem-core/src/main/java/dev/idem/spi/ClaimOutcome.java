package dev.idem.spi;

import dev.idem.IdemListener;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/** What {@link IdempotencyStore#claim} answers. Exactly one concurrent claimer of a record gets {@link Acquired}. */
public sealed interface ClaimOutcome {

    /**
     * What an engine answers for a claim that did not acquire the record, without waiting, with the
     * listener told: a replay, a mismatch, or in progress. The one mapping {@code Idem} and the
     * transactional mode share.
     *
     * @throws IllegalStateException for {@link Acquired}: an acquired claim is answered by running the operation
     */
    default Outcome answer(Scope scope, IdemListener listener) {
        if (this instanceof Replay replay) {
            listener.replayed(scope);
            return new Outcome.Replayed(replay.response());
        }
        if (this instanceof Mismatch) {
            listener.mismatch(scope);
            return new Outcome.Mismatch();
        }
        if (this instanceof InProgress inProgress) {
            listener.inProgress(scope);
            return Outcome.InProgress.lookAgain(inProgress.retryAfter());
        }
        throw new IllegalStateException("an acquired claim is answered by running the operation, not by the claim");
    }

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
