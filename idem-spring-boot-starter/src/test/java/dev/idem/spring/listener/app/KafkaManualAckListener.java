package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.stereotype.Component;

/** A record listener in MANUAL_IMMEDIATE ack mode (spring.kafka.listener.ack-mode) that acknowledges itself. */
@Component
@ConditionalOnProperty("ledger.kafka.manual-topic")
public class KafkaManualAckListener {
    /** Calls per message number, for the in-process test. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private final Ledger ledger;

    public KafkaManualAckListener(Ledger ledger) {
        this.ledger = ledger;
    }

    @KafkaListener(id = "ledger-manual-kafka", topics = "${ledger.kafka.manual-topic}", groupId = "${ledger.kafka.group}")
    @IdempotentListener
    public void on(ConsumerRecord<String, String> record, Acknowledgment acknowledgment) {
        CALLS.computeIfAbsent(record.value().split(":")[0], k -> new AtomicInteger()).incrementAndGet();
        ledger.write("manual-kafka", record.value());
        acknowledgment.acknowledge();
    }
}
