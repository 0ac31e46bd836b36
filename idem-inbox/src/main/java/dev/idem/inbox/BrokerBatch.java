package dev.idem.inbox;

import java.sql.Connection;
import java.sql.SQLException;
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
 * <p>A broker whose batches have an order to keep (a Kafka partition) says so with
 * {@link Broker#ordered}: then nothing overtakes a delivery that was refused or failed, and the
 * deliveries behind it are {@link Broker#unattempted left for redelivery}, uncounted. A broker that
 * keeps its positions in the database writes them in {@link Broker#positions}, in the same transaction
 * as the claims it settles. {@code dev.idem.inbox.consumer.ConsumerLoop} drives this class for every
 * broker consumer of idem.
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
        List<D> behind = new ArrayList<>();
        Map<String, D> firstById = new HashMap<>();
        boolean cut = false;
        for (D d : deliveries) {
            if (cut) {
                behind.add(d);
                continue;
            }
            InboxMessage message = usable(d, broker);
            if (message == null) {
                cut = broker.ordered();  // an ordered batch stops at the refused delivery
                continue;
            }
            messages.add(message);
            claimed.add(d);
            firstById.putIfAbsent(message.id(), d);
        }
        if (!messages.isEmpty()) {
            claimedBatch(Collections.unmodifiableList(claimed), messages, firstById, broker);
        }
        for (D d : behind) {
            broker.unattempted(d);
        }
    }

    private void claimedBatch(List<D> batch, List<InboxMessage> messages, Map<String, D> firstById, Broker<D> broker) throws Exception {
        List<InboxOutcome> outcomes;
        try {
            outcomes = inbox.processBatch(consumer, messages, (c, m) -> handler.handle(c, firstById.get(m.id())),
                    steps(batch, firstById, broker));
        } catch (RuntimeException e) {
            broker.storeFailed(batch, e);
            broker.redeliverAll(batch);
            return;
        }
        broker.committed(batch);
        for (int i = 0; i < batch.size(); i++) {
            InboxOutcome outcome = outcomes.get(i);
            if (outcome == null) {
                broker.unattempted(batch.get(i));
            } else {
                broker.settle(batch.get(i), outcome);
            }
        }
        broker.settled();
    }

    /** The broker's part of each transaction: the deliveries it settles (all of them in the batch's own, the first of one id in a fallback's). */
    private Inbox.BatchSteps steps(List<D> batch, Map<String, D> firstById, Broker<D> broker) {
        return new Inbox.BatchSteps() {
            @Override
            public void beforeCommit(Connection connection, List<String> settledIds) throws SQLException {
                if (settledIds.size() == firstById.size()) {
                    broker.positions(connection, batch);
                    return;
                }
                List<D> settled = new ArrayList<>(settledIds.size());
                for (String id : settledIds) {
                    settled.add(firstById.get(id));
                }
                broker.positions(connection, settled);
            }

            @Override
            public boolean ordered() {
                return broker.ordered();
            }

            @Override
            public long deliveries(String messageId) {
                D first = firstById.get(messageId);
                return first == null ? 0 : broker.deliveries(first);
            }
        };
    }

    /** The delivery as an inbox message, or null after {@link Broker#refuse refusing} it with the reason. */
    private InboxMessage usable(D d, Broker<D> broker) throws Exception {
        try {
            String id = broker.messageId(d);
            if (id == null || id.isEmpty()) {
                broker.refuse(d, "it has no message id: " + broker.missingIdHint());
                return null;
            }
            byte[] body = broker.body(d);
            return InboxMessage.of(id, body == null ? new byte[0] : body, broker.headers(d));
        } catch (RuntimeException e) {
            broker.refuse(d, "its message id is unusable (" + e.getMessage() + ")");
            return null;
        }
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

        /**
         * The committed outcome of one claimed delivery. By default {@link #ack} (PROCESSED, DUPLICATE),
         * {@link #quarantined} (QUARANTINED) or {@link #redeliver} (FAILED); a broker that reports
         * outcomes overrides it.
         */
        default void settle(D delivery, InboxOutcome outcome) throws Exception {
            switch (outcome.status()) {
                case PROCESSED, DUPLICATE -> ack(delivery);
                case QUARANTINED -> quarantined(delivery);
                case FAILED -> redeliver(delivery);
                default -> throw new IllegalStateException("unknown outcome " + outcome);
            }
        }

        /**
         * The broker's own count of the delivery's message, this delivery included (JetStream's
         * {@code NumDelivered}; a quorum queue's {@code x-delivery-count} plus one); 0 if the broker
         * keeps none. The inbox quarantines a failing message once this count or its own reaches
         * {@code maxAttempts}, so deliveries that died with their consumer before the inbox counted
         * them still count against the limit. By default 0.
         */
        default long deliveries(D delivery) {
            return 0;
        }

        /**
         * Whether the batch's order must hold (a Kafka partition): a delivery without a usable id is
         * refused and the ones behind it are left {@link #unattempted}; if the batch's transaction fails
         * because of one message, the fallback stops at the first message that failed. By default false.
         */
        default boolean ordered() {
            return false;
        }

        /** A delivery of an ordered batch that was not processed because one before it failed: deliver it again, uncounted. */
        default void unattempted(D delivery) throws Exception {
            redeliver(delivery);
        }

        /**
         * Work that commits with the claims of {@code settled} (e.g. the broker positions they reach,
         * kept in the database); runs last in each transaction that settles deliveries. By default nothing.
         */
        default void positions(Connection connection, List<D> settled) throws SQLException {
        }
    }
}
