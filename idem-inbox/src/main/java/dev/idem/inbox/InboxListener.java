package dev.idem.inbox;

/**
 * Hooks for the inbox's metrics and logs. Every method defaults to doing nothing; an exception
 * thrown by a listener is logged and otherwise ignored. Called after the transaction that made the
 * event true has committed.
 */
public interface InboxListener {

    /** The handler ran and committed. */
    default void processed(String consumer, String messageId) {
    }

    /** A delivery of a message already processed or dropped was skipped. */
    default void duplicate(String consumer, String messageId) {
    }

    /**
     * A delivery settled without running the handler ({@code DUPLICATE} or {@code QUARANTINED}, also
     * reported as such) carries another payload than the message the inbox holds under its id: the
     * producer gave two messages one id, and this one will never be processed. Reported only where
     * the inbox holds the first payload to compare with: a repeat inside one batch, and a message in
     * the quarantine (when the delivery has a payload). A processed message keeps no payload, so its
     * later deliveries are plain duplicates whatever they carry.
     */
    default void payloadDiffers(String consumer, String messageId) {
    }

    /** The handler threw; {@code attempts} failed attempts are now counted. */
    default void failed(String consumer, String messageId, int attempts, Throwable cause) {
    }

    /** The message was moved to the quarantine after {@code attempts} failed attempts. */
    default void quarantined(String consumer, String messageId, int attempts) {
    }

    /** A quarantined message was replayed successfully and left the quarantine. */
    default void replayed(String consumer, String messageId) {
    }

    /** A quarantined message was dropped: it will not be processed, and redeliveries count as duplicates. */
    default void dropped(String consumer, String messageId) {
    }

    /** {@code count} expired rows (processed messages and attempt counters) were deleted. */
    default void purged(int count) {
    }

    static InboxListener noop() {
        return NoopInboxListener.INSTANCE;
    }
}

final class NoopInboxListener implements InboxListener {
    static final NoopInboxListener INSTANCE = new NoopInboxListener();

    private NoopInboxListener() {
    }
}
