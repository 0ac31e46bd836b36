package dev.idem.inbox.consumer;

import java.util.Collection;
import java.util.Map;

/**
 * Hooks for a broker consumer's logs and metrics, beside the inbox's own {@code InboxListener}. Every
 * method defaults to doing nothing; an exception thrown by a listener is logged and otherwise ignored.
 * Called on the consumer's thread, after the transaction that made the event true has committed.
 * {@code consumer} is the inbox consumer name.
 *
 * @param <M> the broker client's message type
 */
public interface ConsumerListener<M> {

    /** The handler ran for the message and its work committed with the claim. */
    default void processed(String consumer, M message, String messageId) {
    }

    /** The message id is not new (processed before, earlier in the same batch, or dropped): the handler did not run. */
    default void duplicate(String consumer, M message, String messageId) {
    }

    /** The handler threw: the work was rolled back, the attempt counted, and the message will be delivered again. */
    default void failed(String consumer, M message, String messageId, int attempts, Throwable cause) {
    }

    /** The message is in the inbox's quarantine (now, or since an earlier delivery); the broker will not deliver it again. */
    default void quarantined(String consumer, M message, String messageId) {
    }

    /** The message has no usable message id; {@code reason} says what became of it and never quotes the payload. */
    default void refused(String consumer, M message, String reason) {
    }

    /**
     * The inbox's database failed while processing a batch: nothing was committed and no attempt was
     * counted; the batch goes back to the broker after the consumer's store-failure backoff, so here the
     * broker's own delivery limit is the only bound.
     */
    default void storeFailed(String consumer, int messages, RuntimeException failure) {
    }

    /** The broker did not confirm an acknowledgement; it redelivers the message and the inbox answers DUPLICATE. */
    default void ackFailed(String consumer, M message, Exception failure) {
    }

    /**
     * Broker positions were committed: to the broker ({@code inDatabase} false) after the database
     * commit, or to the database with the messages' work ({@code inDatabase} true). Kafka: partition
     * ({@code <topic>-<partition>}) to the next offset.
     */
    default void positionsCommitted(String consumer, Map<String, Long> positions, boolean inDatabase) {
    }

    /** The broker gave this consumer these sources (Kafka: partitions, {@code <topic>-<partition>}). */
    default void assigned(String consumer, Collection<String> sources) {
    }

    /** The broker took these sources away (revoked, or lost without a chance to commit). */
    default void revoked(String consumer, Collection<String> sources) {
    }

    /** The consumer stopped: {@code cause} is null after {@code close()}, else why (the connection or channel went away, a failure). */
    default void stopped(String consumer, Throwable cause) {
    }
}
