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
 * A record listener and a batch listener on Kafka, each with a poison message (its value contains
 * {@code poison}: it always fails) and a flaky one (it ends in {@code " flaky"}: its first two calls fail), as an
 * application's bug and a passing outage would; both count their calls per message number.
 */
@Component
@ConditionalOnProperty("ledger.kafka.poison-topic")
public class KafkaPoisonListeners {
    /** Calls of the methods per listener and message number, for the in-process tests. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private final Ledger ledger;

    public KafkaPoisonListeners(Ledger ledger) {
        this.ledger = ledger;
    }

    @KafkaListener(id = "ledger-poison-records", topics = "${ledger.kafka.poison-topic}", groupId = "${ledger.kafka.group}-poison-records")
    @IdempotentListener
    public void onRecord(ConsumerRecord<String, String> record) {
        book("poison-records", List.of(record.value()));
    }

    @KafkaListener(id = "ledger-poison-batches", topics = "${ledger.kafka.poison-batch-topic}",
            groupId = "${ledger.kafka.group}-poison-batches", batch = "true")
    @IdempotentListener
    public void onBatch(List<ConsumerRecord<String, String>> records) {
        book("poison-batches", records.stream().map(ConsumerRecord::value).toList());
    }

    private void book(String listener, List<String> values) {
        boolean fail = false;
        for (String value : values) {
            int calls = CALLS.computeIfAbsent(listener + "-" + value.split(":")[0], k -> new AtomicInteger()).incrementAndGet();
            fail |= value.contains("poison") || value.endsWith(" flaky") && calls <= 2;
        }
        if (fail) {
            throw new IllegalStateException("cannot book this message");
        }
        ledger.writeAll(listener, values.stream().map(v -> v.replace(" flaky", "")).toList());
    }
}
