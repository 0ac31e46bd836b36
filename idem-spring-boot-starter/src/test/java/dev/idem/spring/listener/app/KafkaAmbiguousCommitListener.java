package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A Kafka record listener whose transaction for the message numbered {@code ledger.kafka.lost-answer}
 * commits, but the first time its COMMIT's answer is lost ({@link LostCommitAnswers}); it counts its
 * calls per message number.
 */
@Component
@ConditionalOnProperty("ledger.kafka.ambiguous-topic")
public class KafkaAmbiguousCommitListener {
    /** Calls per message number, for the in-process test. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private static final Set<String> ANSWERS_LOST = ConcurrentHashMap.newKeySet();
    private final Ledger ledger;
    private final String lostAnswer;

    public KafkaAmbiguousCommitListener(Ledger ledger, @Value("${ledger.kafka.lost-answer}") String lostAnswer) {
        this.ledger = ledger;
        this.lostAnswer = lostAnswer;
    }

    @KafkaListener(id = "ledger-ambiguous", topics = "${ledger.kafka.ambiguous-topic}", groupId = "${ledger.kafka.group}-ambiguous")
    @IdempotentListener
    public void on(ConsumerRecord<String, String> record) {
        String number = record.value().split(":")[0];
        CALLS.computeIfAbsent(number, k -> new AtomicInteger()).incrementAndGet();
        if (number.equals(lostAnswer) && ANSWERS_LOST.add(number)) {
            LostCommitAnswers.loseNextAnswer();
        }
        ledger.write("ambiguous", record.value());
    }
}
