package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * A RabbitMQ listener with a poison message (its body contains {@code poison}: it always fails) and a
 * flaky one (it ends in {@code " flaky"}: its first two calls fail); it counts its calls per message number.
 */
@Component
@ConditionalOnProperty("ledger.rabbit.poison-queue")
public class RabbitPoisonListener {
    /** Calls of the method per message number, for the in-process tests. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private final Ledger ledger;

    public RabbitPoisonListener(Ledger ledger) {
        this.ledger = ledger;
    }

    @RabbitListener(id = "ledger-poison", queues = "${ledger.rabbit.poison-queue}")
    @IdempotentListener
    public void on(Message message) {
        String body = new String(message.getBody(), StandardCharsets.UTF_8);
        int calls = CALLS.computeIfAbsent(body.split(":")[0], k -> new AtomicInteger()).incrementAndGet();
        if (body.contains("poison") || body.endsWith(" flaky") && calls <= 2) {
            throw new IllegalStateException("cannot book this message");
        }
        ledger.write("poison", body.replace(" flaky", ""));
    }
}
