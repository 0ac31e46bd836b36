package dev.idem.inbox;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The part of a broker consumer that sits between a fetched batch and the broker's acknowledgements:
 * it runs the batch through one {@link Inbox#processBatch} call and then tells the broker, delivery by
 * delivery, what became of each. A consumer for a broker with per-message acknowledgements (RabbitMQ,
 * NATS JetStream, …) fetches, calls {@link #process}, and implements {@link Broker} with its client's
 * ack, redeliver and terminate calls; this class decides which of them is called, and when.
 *
 * <h2>The contract: nothing is acknowledged before the database commit</h2>
 * One {@link #process} call does this, in this order, on the calling thread:
 * <ol>
 * <li>For each delivery, in order: {@link Broker#messageId}, {@link Broker#body} and
 *     {@link Broker#headers} make it an {@link InboxMessage}. A delivery without a message id (null or
 *     empty), or whose id the inbox does not accept, or whose accessors throw, is
 *     {@link Broker#refuse refused} at once: it never reaches the inbox and gets no other call.</li>
 * <li>The other deliveries (the <em>claimed</em> ones) go to the inbox in one transaction. The handler
 *     gets, for each new id, the first delivery that carried it.</li>
 * <li>If the inbox throws (the database failed: nothing was committed and no attempt was counted):
 *     {@link Broker#storeFailed}, then {@link Broker#redeliverAll} with every claimed delivery. Nothing
 *     is acknowledged.</li>
 * <li>Otherwise, after the commit: {@link Broker#committed} once; then for each claimed delivery, in
 *     order, exactly one of {@link Broker#ack} (PROCESSED, DUPLICATE), {@link Broker#quarantined}
 *     (QUARANTINED) or {@link Broker#redeliver} (FAILED); then {@link Broker#settled} once.</li>
 * </ol>
 * A broker call that throws ends the batch there and the exception leaves {@code process}; the deliveries
 * not yet answered stay unacknowledged, so the broker redelivers them and the inbox answers those
 * already committed {@code DUPLICATE}. That is why a consumer dying anywhere in this sequence loses
 * nothing and applies nothing twice.
 *
 * <p>A {@code BrokerBatch} keeps no state between calls; a {@link Broker} serves one {@code process}
 * call at a time.
 *
 * @param <D> the broker client's delivery type
 */
public final class BrokerBatch<D> {
    private final Inbox inbox;
    private final String consumer;
    private final Handler<D> handler;

    /**
     * @param consumer the inbox consumer name that scopes the message ids
     * @param handler  the work per new message, on the inbox's transaction
     */
    public BrokerBatch(Inbox inbox, String consumer, Handler<D> handler) {
        this.inbox = Objects.requireNonNull(inbox, "inbox is null");
        this.consumer = Objects.requireNonNull(consumer, "consumer is null");
        this.handler = Objects.requireNonNull(handler, "handler is null");
    }

    /**
     * Processes one batch as the class comment describes.
     *
     * @param deliveries a fetched batch, in delivery order; may be empty
     * @param broker     the broker's side of this batch; a fresh one per batch may keep per-batch state
     *                   (e.g. to send one multiple-ack in {@link Broker#settled})
     * @throws Exception what a {@link Broker} call threw (or an {@link Error} of the handler); a handler's
     *                   exception or a database failure does not throw, it is answered as described above
     */
    public void process(List<D> deliveries, Broker<D> broker) throws Exception {
        Objects.requireNonNull(broker, "broker is null");
        List<InboxMessage> messages = new ArrayList<>(deliveries.size());
        List<D> claimed = new ArrayList<>(deliveries.size());
        Map<String, D> firstById = new HashMap<>();
        for (D d : deliveries) {
            String id;
            InboxMessage message;
            try {
                id = broker.messageId(d);
                if (id == null || id.isEmpty()) {
                    broker.refuse(d, "it has no message id: " + broker.missingIdHint());
                    continue;
                }
                byte[] body = broker.body(d);
                message = InboxMessage.of(id, body == null ? new byte[0] : body, broker.headers(d));
            } catch (RuntimeException e) {
                broker.refuse(d, "its message id is unusable (" + e.getMessage() + ")");
                continue;
            }
            messages.add(message);
            claimed.add(d);
            firstById.putIfAbsent(id, d);
        }
        if (messages.isEmpty()) {
            return;
        }
        List<D> batch = Collections.unmodifiableList(claimed);
        List<InboxOutcome> outcomes;
        try {
            outcomes = inbox.processBatch(consumer, messages, (c, m) -> handler.handle(c, firstById.get(m.id())));
        } catch (RuntimeException e) {
            broker.storeFailed(batch, e);
            broker.redeliverAll(batch);
            return;
        }
        broker.committed(batch);
        for (int i = 0; i < batch.size(); i++) {
            D d = batch.get(i);
            InboxOutcome outcome = outcomes.get(i);
            switch (outcome.status()) {
                case PROCESSED, DUPLICATE -> broker.ack(d);
                case QUARANTINED -> broker.quarantined(d);
                case FAILED -> broker.redeliver(d);
                default -> throw new IllegalStateException("unknown outcome " + outcome);
            }
        }
        broker.settled();
    }

    /** A consumer's work for one delivery, on the inbox's transaction; the rules of {@link InboxHandler} apply. */
    @FunctionalInterface
    public interface Handler<D> {
        void handle(Connection connection, D delivery) throws Exception;
    }

    /**
     * What a {@link BrokerBatch} needs of the broker: how to read a delivery, and what to tell the
     * broker about it. The class comment says when each method is called; all of them run on the
     * thread that called {@link BrokerBatch#process}.
     */
    public interface Broker<D> {

        /** The id that stays the same on every redelivery; null or empty if the delivery has none. May throw if it is unusable. */
        String messageId(D delivery);

        /** The payload, kept by the inbox only if the message is quarantined; null counts as empty. */
        byte[] body(D delivery);

        /** Headers kept with the payload if the message is quarantined, for inspection and replay. */
        Map<String, String> headers(D delivery);

        /** Completes the refusal reason "it has no message id: …" (where an id was looked for, what the publisher should set). */
        String missingIdHint();

        /**
         * The delivery has no usable message id, so the inbox cannot deduplicate it: make sure the broker
         * does not redeliver it (reject without requeue, terminate, dead-letter), and report it.
         * Called before the batch's transaction.
         *
         * @param reason "it has no message id: …" or "its message id is unusable (…)"; never quotes the payload
         */
        void refuse(D delivery, String reason) throws Exception;

        /**
         * The inbox's database failed: nothing of the batch was committed and no attempt was counted.
         * Report it and pause before {@link #redeliverAll} follows, so that a database that is down is
         * not hit again at once.
         */
        void storeFailed(List<D> deliveries, RuntimeException failure) throws Exception;

        /** Returns every delivery of a batch whose transaction failed to the broker, for redelivery. By default {@link #redeliver} each. */
        default void redeliverAll(List<D> deliveries) throws Exception {
            for (D d : deliveries) {
                redeliver(d);
            }
        }

        /** The batch's transaction committed; nothing has been acknowledged yet. A point for tests to stop at; by default nothing. */
        default void committed(List<D> deliveries) throws Exception {
        }

        /** PROCESSED or DUPLICATE, committed: the broker may forget the delivery. */
        void ack(D delivery) throws Exception;

        /** QUARANTINED: the message is in the inbox's quarantine table; the broker must not redeliver it (ack or terminate). */
        void quarantined(D delivery) throws Exception;

        /** FAILED: the handler threw, the attempt is counted; have the broker deliver it again. */
        void redeliver(D delivery) throws Exception;

        /** Every claimed delivery of the batch has had its call; a broker that acknowledges in bulk sends it here. By default nothing. */
        default void settled() throws Exception {
        }
    }
}
