package dev.idem;

import java.time.Duration;
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

    /** Another call holds the key and did not finish in time; try again after {@code retryAfter}. */
    record InProgress(Duration retryAfter) implements Outcome {
        public InProgress {
            Objects.requireNonNull(retryAfter, "retryAfter");
        }
    }

    /** The key was used before for a request with another fingerprint. Nothing ran. */
    record Mismatch() implements Outcome {
    }
}
