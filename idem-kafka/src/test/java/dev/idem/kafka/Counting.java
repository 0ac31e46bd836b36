package dev.idem.kafka;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** A listener that counts what a consumer did and keeps its current assignment. */
final class Counting implements KafkaConsumerListener {
    final AtomicInteger processed = new AtomicInteger();
    final AtomicInteger duplicates = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger quarantined = new AtomicInteger();
    final AtomicInteger kafkaCommits = new AtomicInteger();
    final AtomicInteger databaseCommits = new AtomicInteger();
    final List<String> processedIds = new CopyOnWriteArrayList<>();
    final List<String> duplicateIds = new CopyOnWriteArrayList<>();
    /** Processed records in the order their work committed. */
    final List<ConsumerRecord<?, ?>> processedRecords = new CopyOnWriteArrayList<>();
    final Set<TopicPartition> assignment = ConcurrentHashMap.newKeySet();

    @Override
    public void processed(String consumer, ConsumerRecord<?, ?> record, String messageId) {
        processed.incrementAndGet();
        processedIds.add(messageId);
        processedRecords.add(record);
    }

    @Override
    public void duplicate(String consumer, ConsumerRecord<?, ?> record, String messageId) {
        duplicates.incrementAndGet();
        duplicateIds.add(messageId);
    }

    @Override
    public void failed(String consumer, ConsumerRecord<?, ?> record, String messageId, int attempts, Throwable cause) {
        failed.incrementAndGet();
    }

    @Override
    public void quarantined(String consumer, ConsumerRecord<?, ?> record, String messageId) {
        quarantined.incrementAndGet();
    }

    @Override
    public void committed(String consumer, Map<TopicPartition, OffsetAndMetadata> offsets, boolean inDatabase) {
        (inDatabase ? databaseCommits : kafkaCommits).incrementAndGet();
    }

    @Override
    public void partitionsAssigned(String consumer, Collection<TopicPartition> partitions) {
        assignment.addAll(partitions);
    }

    @Override
    public void partitionsRevoked(String consumer, Collection<TopicPartition> partitions) {
        assignment.removeAll(partitions);
    }
}
