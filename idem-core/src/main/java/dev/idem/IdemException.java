package dev.idem;

/**
 * Base of every exception idem throws. Unchecked: callers decide where to handle store and
 * lease failures. Messages name the scope and the state involved, never an idempotency key's
 * value or a body.
 */
public class IdemException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected IdemException(String message) {
        super(message);
    }

    protected IdemException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * For exceptions that answer bad input: they come at the rate clients send it, so they skip the
     * stack trace (its cost is the caller's, not the bug's) and suppression.
     */
    protected IdemException(String message, boolean badInput) {
        super(message, null, !badInput, !badInput);
    }
}
