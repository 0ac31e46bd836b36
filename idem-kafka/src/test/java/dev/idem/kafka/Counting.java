package dev.idem.kafka;

import dev.idem.inbox.consumer.ConsumerListener;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A listener that counts what a consumer did and keeps its current assignment. */
final class Counting implements ConsumerListener<ConsumerRecord<?, ?>> {
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
    final Set<String> assignment = ConcurrentHashMap.newKeySet();

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
    public void positionsCommitted(String consumer, Map<String, Long> offsets, boolean inDatabase) {
        (inDatabase ? databaseCommits : kafkaCommits).incrementAndGet();
    }

    @Override
    public void assigned(String consumer, Collection<String> partitions) {
        assignment.addAll(partitions);
    }

    @Override
    public void revoked(String consumer, Collection<String> partitions) {
        assignment.removeAll(partitions);
    }
}
