package dev.idem.inbox.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * What the {@link ConsumerLoop} needs of one broker: how to fetch, read and answer its messages. The
 * loop decides when each answer is given (never before the inbox's commit); the adapter only speaks
 * the broker's protocol. Every method but {@link #wakeup} runs on the loop's thread.
 *
 * @param <M> the broker client's message type
 */
public interface BrokerAdapter<M> {

    /**
     * Called once when the loop starts, before the first fetch (e.g. to make the client and subscribe).
     *
     * @param consumerName the configured inbox consumer name, or null if none was set
     * @return the inbox consumer name to use (e.g. Kafka's group id where none was set)
     */
    default String open(String consumerName) throws Exception {
        return consumerName;
    }

    /**
     * The next batch, in delivery order, waiting a little if nothing has arrived; empty if nothing did.
     * Throws if the subscription is gone for good: that ends the loop.
     */
    List<M> fetch() throws Exception;

    /** The payload the quarantine keeps; null counts as empty. */
    byte[] body(M message);

    /** Headers the quarantine keeps with the payload, for inspection and replay. */
    Map<String, String> headers(M message);

    /**
     * The broker's own count of this message's deliveries, this one included, where the broker keeps
     * one (see {@code BrokerBatch.Broker#deliveries}); 0 if it keeps none. By default 0.
     */
    default long deliveries(M message) {
        return 0;
    }

    /** Completes "it has no message id: …": where an id was looked for, what the publisher should set. */
    String missingIdHint();

    /** The message for a log line, e.g. "a delivery on queue 'payments' (delivery tag 7)"; never quotes the payload. */
    String describe(M message);

    /** What {@link #refuse} does, for the log line and the listener, e.g. "It was terminated (term): …". */
    String refusal();

    /** The message has no usable id: make sure the broker does not deliver it again as it is. */
    void refuse(M message, String reason) throws Exception;

    /** PROCESSED or DUPLICATE, committed: the broker may forget the message. */
    void ack(M message) throws Exception;

    /** QUARANTINED: the inbox keeps the message; the broker must not deliver it again. */
    void quarantined(M message) throws Exception;

    /** FAILED: the attempt is counted; the broker delivers the message again. */
    void redeliver(M message) throws Exception;

    /** The batch's transaction failed: every message goes back to the broker. By default {@link #redeliver} each. */
    default void redeliverAll(List<M> messages) throws Exception {
        for (M m : messages) {
            redeliver(m);
        }
    }

    /** An ordered batch's message left behind a failed one: deliver it again, uncounted. By default {@link #redeliver}. */
    default void unattempted(M message) throws Exception {
        redeliver(message);
    }

    /** The batch's transaction committed, nothing answered yet. By default nothing. */
    default void committed(List<M> messages) throws Exception {
    }

    /** After every fetch and its answers (also an empty one): bulk acknowledgements, offset commits. By default nothing. */
    default void afterFetch() throws Exception {
    }

    /** Whether a batch's order must hold (see {@code BrokerBatch.Broker#ordered}). By default false. */
    default boolean ordered() {
        return false;
    }

    /** Work that commits with the claims of {@code settled}: positions kept in the database. By default nothing. */
    default void positions(Connection connection, List<M> settled) throws SQLException {
    }

    /** Asked from any thread to stop: wake a blocked fetch, cancel the subscription. By default nothing. */
    default void wakeup() {
    }

    /**
     * The loop ended; release what the adapter holds (commit what was settled, unsubscribe, close).
     *
     * @param failure what ended the loop, or null after a close
     */
    void release(Throwable failure);
}
