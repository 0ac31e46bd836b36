package dev.idem;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/** What {@link Idem#execute} answers. */
public sealed interface Outcome {

    /**
     * This call ran the operation (from the start, or resumed after an earlier owner's last phase).
     *
     * @param stored  whether the response was stored for replay (the failure policy may decline, e.g. a 5xx)
     * @param attempt 1 for a first run, more after takeovers
     */
    record Executed(StoredResponse response, boolean stored, int attempt) implements Outcome {
        public Executed {
            Objects.requireNonNull(response, "response");
        }
    }

    /** An earlier call with the same key and fingerprint completed; this is its stored response. */
    record Replayed(StoredResponse response) implements Outcome {
        public Replayed {
            Objects.requireNonNull(response, "response");
        }
    }

    /**
     * Another call holds the key and did not finish in time; look again after {@code retryAfter}.
     * The engine answers when to poll ({@link #lookAgain}), not when the holder's lease ends: the
     * holder usually finishes long before that.
     */
    record InProgress(Duration retryAfter) implements Outcome {
        /** The longest an in-progress answer tells a caller to wait before it looks again. */
        public static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

        public InProgress {
            Objects.requireNonNull(retryAfter, "retryAfter");
        }

        /**
         * The engine's answer for a key whose holder's lease has {@code leaseLeft} to run: look again
         * after {@link #POLL_INTERVAL}, or when the lease ends if that is sooner (a retry then may
         * take the key over).
         */
        public static InProgress lookAgain(Duration leaseLeft) {
            Objects.requireNonNull(leaseLeft, "leaseLeft");
            return new InProgress(leaseLeft.compareTo(POLL_INTERVAL) < 0 ? leaseLeft : POLL_INTERVAL);
        }
    }

    /** The key was used before for a request with another fingerprint. Nothing ran. */
    record Mismatch() implements Outcome {
    }

    /**
     * An earlier call with this key and fingerprint completed at {@code completedAt} with
     * {@code status}, and its response is no longer kept: its retention passed, and the engine's
     * {@linkplain Idem.Builder#tombstones tombstone} remembers only that it completed. Nothing ran.
     *
     * @param completedAt when the earlier call completed, as its engine's clock read it
     * @param status      the status of the response it stored
     */
    record Expired(Instant completedAt, int status) implements Outcome {
        public Expired {
            Objects.requireNonNull(completedAt, "completedAt");
        }
    }
}
