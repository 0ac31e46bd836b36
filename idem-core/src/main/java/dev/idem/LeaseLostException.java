package dev.idem;

/**
 * A write by an owner whose fencing token is no longer current: the lease expired and another
 * claimer took the record over, or the record was released, completed or purged meanwhile. The
 * write changed nothing. The current owner's result is authoritative; the stale owner should stop.
 */
public final class LeaseLostException extends IdemException {
    private static final long serialVersionUID = 1L;

    private final Scope scope;
    private final long token;

    private LeaseLostException(Scope scope, long token, String operation) {
        super(operation + " rejected for scope '" + scope + "': fencing token " + token
                + " is no longer the owner's (lease expired and taken over, or record gone)");
        this.scope = scope;
        this.token = token;
    }

    /** Made by stores when a conditional write matched no record holding {@code token}. */
    public static LeaseLostException staleToken(Scope scope, long token, String operation) {
        return new LeaseLostException(scope, token, operation);
    }

    public Scope scope() {
        return scope;
    }

    public long token() {
        return token;
    }
}
