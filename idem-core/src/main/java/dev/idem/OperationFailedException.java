package dev.idem;

/**
 * Wraps a checked exception thrown by an operation: an {@link Operation} of {@link Idem#execute}, or
 * one of another mode that runs on the engine (the JDBC store's transactional mode). The key was
 * given back (or the transaction rolled back). Unchecked exceptions and errors propagate unchanged.
 */
public final class OperationFailedException extends IdemException {
    private static final long serialVersionUID = 1L;

    /** For a mode that runs operations on the engine: {@code cause} is what the operation threw. */
    public OperationFailedException(Scope scope, Exception cause) {
        // The cause's class only: its message is the application's and may quote a key or a body.
        super("operation for scope '" + scope + "' failed with " + cause.getClass().getName(), cause);
    }
}
