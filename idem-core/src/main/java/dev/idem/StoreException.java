package dev.idem;

/**
 * The store could not be reached or refused an operation for a reason other than fencing: a closed
 * pool, a lost connection, a missing table. Nothing was written by the failed call (stores write
 * each operation atomically).
 */
public final class StoreException extends IdemException {
    private static final long serialVersionUID = 1L;

    private StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * @param store     short store name, e.g. "PostgreSQL store"
     * @param operation the SPI operation that failed, e.g. "claim"
     * @param scope     the record's scope, or {@code null} for operations without one
     */
    public static StoreException failed(String store, String operation, Scope scope, Throwable cause) {
        String where = scope == null ? "" : " for scope '" + scope + "'";
        String reason = cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage();
        return new StoreException(store + ": " + operation + " failed" + where + reason, cause);
    }
}
