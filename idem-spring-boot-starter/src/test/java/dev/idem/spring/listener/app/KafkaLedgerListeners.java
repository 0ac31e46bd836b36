package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** A record listener and a batch listener, each with two consumers in one group, as an application would write them. */
@Component
@ConditionalOnProperty("ledger.kafka.topic")
public class KafkaLedgerListeners {
    private final Ledger ledger;

    public KafkaLedgerListeners(Ledger ledger) {
        this.ledger = ledger;
    }

    @KafkaListener(id = "ledger-records", topics = "${ledger.kafka.topic}", groupId = "${ledger.kafka.group}-records", concurrency = "2")
    @IdempotentListener
    public void onRecord(ConsumerRecord<String, String> record) {
        ledger.write("records", record.value());
    }

    @KafkaListener(id = "ledger-batches", topics = "${ledger.kafka.batch-topic}", groupId = "${ledger.kafka.group}-batches", concurrency = "2",
            batch = "true")
    @IdempotentListener
    public void onBatch(List<ConsumerRecord<String, String>> records) {
        ledger.writeAll("batches", records.stream().map(ConsumerRecord::value).toList());
    }
}
