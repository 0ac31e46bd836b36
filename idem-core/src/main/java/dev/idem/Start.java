package dev.idem;

import java.util.Objects;

/**
 * What {@link Idem#start} found: the key is this caller's to run ({@link Owned}), or there is an
 * answer already ({@link Answered}: a replay, in progress elsewhere, or a mismatch).
 */
public sealed interface Start {
    /** The caller owns the key: run the operation, then {@link OpenExecution#complete} or {@link OpenExecution#fail}. */
    record Owned(OpenExecution execution) implements Start {
        public Owned {
            Objects.requireNonNull(execution, "execution is null");
        }
    }

    /** Nothing to run: answer with {@code outcome} (never {@link Outcome.Executed}). */
    record Answered(Outcome outcome) implements Start {
        public Answered {
            Objects.requireNonNull(outcome, "outcome is null");
        }
    }
}
