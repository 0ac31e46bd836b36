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

    /**
     * After one of the relay's purges, with {@linkplain Outbox.Builder#retentionByPartition retention by
     * partition}: partitions past their time were kept, because an event in them is not sent yet or was
     * sent less than its retention ago ({@link Outbox#keptPartitions()}). Told after every purge while it
     * lasts: a lag that keeps growing is an event that is not getting out.
     */
    default void partitionsKept(Outbox.KeptPartitions kept) {
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
