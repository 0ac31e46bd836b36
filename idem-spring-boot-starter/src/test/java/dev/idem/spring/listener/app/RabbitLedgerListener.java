package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import java.nio.charset.StandardCharsets;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** A RabbitMQ listener with two consumers, acknowledged by the container after it returns (AUTO). */
@Component
@ConditionalOnProperty("ledger.rabbit.queue")
public class RabbitLedgerListener {
    private final Ledger ledger;

    public RabbitLedgerListener(Ledger ledger) {
        this.ledger = ledger;
    }

    @RabbitListener(id = "ledger-rabbit", queues = "${ledger.rabbit.queue}", concurrency = "2")
    @IdempotentListener
    public void on(Message message) {
        ledger.write("rabbit", new String(message.getBody(), StandardCharsets.UTF_8));
    }
}
