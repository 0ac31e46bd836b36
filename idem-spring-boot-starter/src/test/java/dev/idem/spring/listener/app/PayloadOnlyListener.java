package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** A listener that takes only the payload and says nothing of its id: it must not start. */
@Component
@ConditionalOnProperty("ledger.payload-only.topic")
public class PayloadOnlyListener {

    @KafkaListener(topics = "${ledger.payload-only.topic}", groupId = "payload-only")
    @IdempotentListener
    public void on(String payload) {
        throw new AssertionError("never called");
    }
}
