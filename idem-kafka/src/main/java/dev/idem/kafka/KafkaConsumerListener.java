package dev.idem.kafka;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Hooks for an {@link IdempotentKafkaConsumer}'s metrics and logs. Every method defaults to doing
 * nothing; an exception thrown by a listener is logged and otherwise ignored. Called on the
 * consumer's poll thread, after the transaction that made the event true has committed.
 */
public interface KafkaConsumerListener {

    /** The handler ran for the record and its work committed with the claim. */
    default void processed(String consumer, ConsumerRecord<?, ?> record, String messageId) {
    }

    /**
     * The record's message id is not new: processed before (or earlier in the same poll), dropped, or
     * in the quarantine since an earlier delivery. The handler did not run.
     */
    default void duplicate(String consumer, ConsumerRecord<?, ?> record, String messageId) {
    }

    /** The handler threw; the work was rolled back, the attempt counted, and the record will be delivered again. */
    default void failed(String consumer, ConsumerRecord<?, ?> record, String messageId, int attempts, Throwable cause) {
    }

    /** The record's message is in the quarantine (now, or since an earlier delivery); the consumer moves past it. */
    default void quarantined(String consumer, ConsumerRecord<?, ?> record, String messageId) {
    }

    /**
     * Offsets were committed: to Kafka ({@code inDatabase} false) after the database commit, or to the
     * database with the records' work ({@code inDatabase} true).
     */
    default void committed(String consumer, Map<TopicPartition, OffsetAndMetadata> offsets, boolean inDatabase) {
    }

    /** The group gave this consumer these partitions. */
    default void partitionsAssigned(String consumer, Collection<TopicPartition> partitions) {
    }

    /** The group took these partitions away (revoked, or lost without a chance to commit). */
    default void partitionsRevoked(String consumer, Collection<TopicPartition> partitions) {
    }

    static KafkaConsumerListener noop() {
        return NoopKafkaConsumerListener.INSTANCE;
    }
}

final class NoopKafkaConsumerListener implements KafkaConsumerListener {
    static final NoopKafkaConsumerListener INSTANCE = new NoopKafkaConsumerListener();

    private NoopKafkaConsumerListener() {
    }
}
