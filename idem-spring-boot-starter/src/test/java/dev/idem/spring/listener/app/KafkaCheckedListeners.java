package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A record listener and a batch listener on Kafka that fail for a message whose value contains
 * {@code poison} (the batch listener: for a batch holding one), as a bug in an application would;
 * both count their calls per message number.
 */
@Component
@ConditionalOnProperty("ledger.kafka.checked-topic")
public class KafkaCheckedListeners {
    /** Calls of the methods per listener and message number, for the in-process tests. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private final Ledger ledger;

    public KafkaCheckedListeners(Ledger ledger) {
        this.ledger = ledger;
    }

    @KafkaListener(id = "ledger-checked-kafka", topics = "${ledger.kafka.checked-topic}", groupId = "${ledger.kafka.group}-checked")
    @IdempotentListener
    public void onRecord(ConsumerRecord<String, String> record) {
        book("checked-kafka", List.of(record.value()));
    }

    @KafkaListener(id = "ledger-checked-batches", topics = "${ledger.kafka.checked-batch-topic}",
            groupId = "${ledger.kafka.group}-checked-batches", batch = "true")
    @IdempotentListener
    public void onBatch(List<ConsumerRecord<String, String>> records) {
        book("checked-batches", records.stream().map(ConsumerRecord::value).toList());
    }

    private void book(String listener, List<String> values) {
        for (String value : values) {
            CALLS.computeIfAbsent(listener + "-" + value.split(":")[0], k -> new AtomicInteger()).incrementAndGet();
        }
        if (values.stream().anyMatch(v -> v.contains("poison"))) {
            throw new IllegalStateException("cannot book this message");
        }
        ledger.writeAll(listener, values);
    }
}
