package dev.idem.spring.internal;

/** The starter was asked to build an {@code Idem} but the application has no store for it. */
public final class NoIdempotencyStoreException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public NoIdempotencyStoreException() {
        super("idem needs an IdempotencyStore, and the application has neither an IdempotencyStore bean nor a"
                + " single DataSource to build a JdbcIdempotencyStore on. Configure a DataSource (spring.datasource.url,"
                + " PostgreSQL or SQLite), define an IdempotencyStore (or Idem) bean, or set idem.enabled=false.");
    }
}
