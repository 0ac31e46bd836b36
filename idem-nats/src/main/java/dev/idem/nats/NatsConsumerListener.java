package dev.idem.nats;

import io.nats.client.Message;

/**
 * Hooks for a {@link NatsInboxConsumer}'s logs and metrics, beside the inbox's own
 * {@code InboxListener} (processed, duplicate, failed, quarantined). Every method defaults to doing
 * nothing; an exception thrown by a listener is logged and otherwise ignored.
 */
public interface NatsConsumerListener {

    /** A message was refused ({@code term()}) because it has no usable message id. {@code reason} never quotes the payload. */
    default void refused(String stream, Message message, String reason) {
    }

    /**
     * The inbox's database failed while processing a fetch: nothing was committed or counted, and
     * the messages were nak'ed (after the consumer's store-failure pause). Here the consumer's
     * {@code MaxDeliver} is the only bound.
     */
    default void storeFailed(String stream, int messages, RuntimeException failure) {
    }

    /** An {@code AckSync} was not confirmed; JetStream redelivers the message after {@code AckWait}, and the inbox answers DUPLICATE. */
    default void ackFailed(String stream, Message message, Exception failure) {
    }

    /** The consumer stopped: {@code cause} is null after {@link NatsInboxConsumer#close()}, else why (e.g. the connection closed). */
    default void stopped(String stream, Throwable cause) {
    }

    static NatsConsumerListener noop() {
        return NoopNatsConsumerListener.INSTANCE;
    }
}

final class NoopNatsConsumerListener implements NatsConsumerListener {
    static final NoopNatsConsumerListener INSTANCE = new NoopNatsConsumerListener();

    private NoopNatsConsumerListener() {
    }
}
