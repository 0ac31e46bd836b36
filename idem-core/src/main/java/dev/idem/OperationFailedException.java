package dev.idem;

/**
 * Wraps a checked exception thrown by an {@link Operation}. Unchecked exceptions and errors
 * propagate unchanged.
 */
public final class OperationFailedException extends IdemException {
    private static final long serialVersionUID = 1L;

    OperationFailedException(Scope scope, Exception cause) {
        super("operation for scope '" + scope + "' failed: " + cause, cause);
    }
}
