package dev.idem.spring;

import dev.idem.IdemException;
import dev.idem.Scope;
import java.time.Instant;

/**
 * An {@link IdempotentMethod}'s key completed before, but its result's retention has passed and only
 * the engine's tombstone of it is left ({@code idem.tombstones}): the call completed at
 * {@link #completedAt()}; its result is no longer kept. Nothing ran; the message names the scope and
 * the time only, never the key or the arguments.
 */
public final class IdempotentMethodExpiredException extends IdemException {
    private static final long serialVersionUID = 1L;

    private final Instant completedAt;

    IdempotentMethodExpiredException(Scope scope, Instant completedAt) {
        super("the key's call for '" + scope + "' completed at " + completedAt
                + " and its result is no longer kept; nothing ran (use a new key for a new call)", true);
        this.completedAt = completedAt;
    }

    /** When the earlier call completed, by its engine's clock. */
    public Instant completedAt() {
        return completedAt;
    }
}
