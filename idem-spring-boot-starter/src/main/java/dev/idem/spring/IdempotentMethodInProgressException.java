package dev.idem.spring;

import dev.idem.IdemException;
import dev.idem.Scope;
import java.time.Duration;

/**
 * Another call with the same key is running an {@link IdempotentMethod} (and this call did not, or
 * not long enough, wait for it). Nothing ran; retrying the call with the same arguments is safe:
 * it gets the running call's result once that completes, or runs if that call failed.
 */
public final class IdempotentMethodInProgressException extends IdemException {
    private static final long serialVersionUID = 1L;

    private final transient Duration retryAfter;

    IdempotentMethodInProgressException(Scope scope, Duration retryAfter) {
        super("a call with the same key is in progress for '" + scope + "'; nothing ran, and retrying after "
                + retryAfter.toMillis() + " ms is safe", true);
        this.retryAfter = retryAfter;
    }

    /** When the running call's lease is due to be renewed or end: a sensible moment to retry. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
