package dev.idem.spring.internal.listener.kafka;

import dev.idem.spring.internal.listener.UnsettledFailures;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.TopicPartitionOffset;

/**
 * A listener container's error handler (the application's, or spring-kafka's default where it set
 * none), with one change: a record an {@code @IdempotentListener} failed on and the inbox has not
 * settled is never skipped. The handler retries as it is configured to; if it then gives the record
 * up (its recoverer ran: logged, dead-lettered, ...) without seeking back to it, the record is sought
 * back here, so the container delivers it again, until the inbox quarantines it at
 * {@code idem.inbox.max-attempts} and the advice returns normally. Every other failure is the
 * handler's alone.
 */
final class UnsettledRedelivery implements CommonErrorHandler {
    private static final Log LOG = LogFactory.getLog(UnsettledRedelivery.class);
    private final CommonErrorHandler handler;

    UnsettledRedelivery(CommonErrorHandler handler) {
        this.handler = handler;
    }

    @Override
    public void handleRemaining(Exception failure, List<ConsumerRecord<?, ?>> records, Consumer<?, ?> consumer,
                                MessageListenerContainer container) {
        if (records.isEmpty() || !UnsettledFailures.contains(failure)) {
            handler.handleRemaining(failure, records, consumer, container);
            return;
        }
        Seeks seeks = new Seeks(consumer);
        try {
            handler.handleRemaining(failure, records, seeks.consumer(), container);
        } finally {
            seeks.redeliver(records.get(0));  // also when the handler threw, as spring-kafka's does after its seeks
        }
    }

    @Override
    public void handleBatch(Exception failure, ConsumerRecords<?, ?> records, Consumer<?, ?> consumer, MessageListenerContainer container,
                            Runnable invokeListener) {
        ConsumerRecord<?, ?> failed = UnsettledFailures.contains(failure) ? failedRecord(failure, records) : null;
        if (failed == null) {
            handler.handleBatch(failure, records, consumer, container, invokeListener);
            return;
        }
        Seeks seeks = new Seeks(consumer);
        try {
            handler.handleBatch(failure, records, seeks.consumer(), container, invokeListener);
        } finally {
            seeks.redeliver(failed);
        }
    }

    /** The record the advice named by its index in the batch ({@link KafkaListenerBroker#failedInBatch}), or null. */
    private static ConsumerRecord<?, ?> failedRecord(Exception failure, ConsumerRecords<?, ?> records) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BatchListenerFailedException named && named.getIndex() >= 0) {
                Iterator<? extends ConsumerRecord<?, ?>> each = records.iterator();
                for (int i = 0; each.hasNext(); i++) {
                    ConsumerRecord<?, ?> record = each.next();
                    if (i == named.getIndex()) {
                        return record;
                    }
                }
            }
        }
        return null;
    }

    // ---- the rest is the handler's ------------------------------------------------------------------

    @Override
    public boolean seeksAfterHandling() {
        return handler.seeksAfterHandling();
    }

    @Override
    public boolean deliveryAttemptHeader() {
        return handler.deliveryAttemptHeader();
    }

    @Override
    public void handleOtherException(Exception failure, Consumer<?, ?> consumer, MessageListenerContainer container, boolean batchListener) {
        handler.handleOtherException(failure, consumer, container, batchListener);
    }

    @Override
    public boolean handleOne(Exception failure, ConsumerRecord<?, ?> record, Consumer<?, ?> consumer, MessageListenerContainer container) {
        return handler.handleOne(failure, record, consumer, container);
    }

    @Override
    public <K, V> ConsumerRecords<K, V> handleBatchAndReturnRemaining(Exception failure, ConsumerRecords<?, ?> records,
                                                                      Consumer<?, ?> consumer, MessageListenerContainer container,
                                                                      Runnable invokeListener) {
        return handler.handleBatchAndReturnRemaining(failure, records, consumer, container, invokeListener);
    }

    @Override
    public int deliveryAttempt(TopicPartitionOffset topicPartitionOffset) {
        return handler.deliveryAttempt(topicPartitionOffset);
    }

    @Override
    public void clearThreadState() {
        handler.clearThreadState();
    }

    @Override
    public boolean isAckAfterHandle() {
        return handler.isAckAfterHandle();
    }

    @Override
    public void setAckAfterHandle(boolean ack) {
        handler.setAckAfterHandle(ack);
    }

    @Override
    public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions, Runnable publishPause) {
        handler.onPartitionsAssigned(consumer, partitions, publishPause);
    }

    /** The consumer handed to the handler, noting where it seeks each partition and which offsets it commits. */
    private static final class Seeks {
        private final Consumer<?, ?> consumer;
        private final Map<TopicPartition, Long> sought = new HashMap<>();
        private final Map<TopicPartition, Long> committed = new HashMap<>();

        Seeks(Consumer<?, ?> consumer) {
            this.consumer = consumer;
        }

        Consumer<?, ?> consumer() {
            return (Consumer<?, ?>) Proxy.newProxyInstance(Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("seek") && args.length == 2 && args[0] instanceof TopicPartition partition) {
                            sought.put(partition, args[1] instanceof OffsetAndMetadata o ? o.offset() : (Long) args[1]);
                        } else if (method.getName().startsWith("commit") && args != null && args.length > 0 && args[0] instanceof Map<?, ?> offsets) {
                            offsets.forEach((partition, offset) -> committed.put((TopicPartition) partition, ((OffsetAndMetadata) offset).offset()));
                        }
                        try {
                            return method.invoke(consumer, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        /**
         * Seeks back to {@code record} unless the handler did: it gave the record up, and the inbox has not
         * settled it. An offset the handler committed past it is taken back, so a restart fetches it too.
         */
        void redeliver(ConsumerRecord<?, ?> record) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            Long offset = sought.get(partition);
            if (offset != null && offset <= record.offset()) {
                return;
            }
            LOG.warn("@IdempotentListener: the container's error handler gave up on " + partition + "@" + record.offset()
                    + ", which the inbox has not quarantined yet; it is delivered again until idem.inbox.max-attempts quarantines it");
            consumer.seek(partition, record.offset());
            Long past = committed.get(partition);
            if (past != null && past > record.offset()) {
                consumer.commitSync(Map.of(partition, new OffsetAndMetadata(record.offset())));
            }
        }
    }
}
