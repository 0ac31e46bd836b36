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

    private LeaseLostException(Scope scope, long token, String operation, Throwable cause) {
        super(operation + " not started for scope '" + scope + "': the lease of fencing token " + token
                + " could not be confirmed to still hold, so another owner may have taken over", cause);
        this.scope = scope;
        this.token = token;
    }

    /** Made by stores when a conditional write matched no record holding {@code token}. */
    public static LeaseLostException staleToken(Scope scope, long token, String operation) {
        return new LeaseLostException(scope, token, operation);
    }

    /**
     * Made by the engine when an owner fences itself: it was about to start a phase or store its
     * result, its last confirmed lease was (nearly) over, and confirming it again failed with
     * {@code cause}. Nothing was written; the record may still be this owner's.
     */
    public static LeaseLostException unconfirmed(Scope scope, long token, String operation, Throwable cause) {
        return new LeaseLostException(scope, token, operation, cause);
    }

    public Scope scope() {
        return scope;
    }

    public long token() {
        return token;
    }
}
