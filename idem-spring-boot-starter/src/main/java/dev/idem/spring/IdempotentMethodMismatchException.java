package dev.idem.spring;

import dev.idem.IdemException;
import dev.idem.Scope;

/**
 * An {@link IdempotentMethod}'s key was used before with other {@link IdempotentMethod#fingerprint()
 * fingerprint} values: a different request under the same key. Nothing ran; the message names the
 * scope only, never the key or the arguments.
 */
public final class IdempotentMethodMismatchException extends IdemException {
    private static final long serialVersionUID = 1L;

    IdempotentMethodMismatchException(Scope scope) {
        super("the key was used before with other fingerprint values for '" + scope
                + "'; nothing ran (use a new key for a different request)", true);
    }
}
