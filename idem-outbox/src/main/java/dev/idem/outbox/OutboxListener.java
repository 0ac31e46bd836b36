package dev.idem.outbox;

/**
 * Hooks for an {@link OutboxRelay}'s metrics and logs; every method defaults to doing nothing, and
 * an exception thrown by a listener is logged and otherwise ignored.
 */
public interface OutboxListener {

    /** The publisher accepted the event (it is marked sent right after the poll). */
    default void published(OutboxMessage message) {
    }

    /** The publisher threw; the event is retried after a backoff, and its aggregate waits. */
    default void failed(OutboxMessage message, int attempts, Throwable cause) {
    }

    /** {@code count} sent events past their retention were deleted. */
    default void purged(int count) {
    }

    static OutboxListener noop() {
        return NoopOutboxListener.INSTANCE;
    }
}

final class NoopOutboxListener implements OutboxListener {
    static final NoopOutboxListener INSTANCE = new NoopOutboxListener();

    private NoopOutboxListener() {
    }
}
