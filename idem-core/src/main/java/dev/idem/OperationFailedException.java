package dev.idem;

/**
 * Wraps a checked exception thrown by an {@link Operation}. Unchecked exceptions and errors
 * propagate unchanged.
 */
public final class OperationFailedException extends IdemException {
    private static final long serialVersionUID = 1L;

    OperationFailedException(Scope scope, Exception cause) {
        // The cause's class only: its message is the application's and may quote a key or a body.
        super("operation for scope '" + scope + "' failed with " + cause.getClass().getName(), cause);
    }
}
