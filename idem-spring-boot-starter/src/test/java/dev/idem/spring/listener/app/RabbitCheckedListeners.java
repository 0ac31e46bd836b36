package dev.idem.spring.listener.app;

import com.rabbitmq.client.Channel;
import dev.idem.spring.IdempotentListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * A listener that fails for messages whose body starts with {@code poison}, and one in MANUAL ack mode
 * that acknowledges through its Channel; both count their calls per message number.
 */
@Component
@ConditionalOnProperty("ledger.rabbit.checked-queue")
public class RabbitCheckedListeners {
    /** Calls of the methods per message number, for the in-process tests. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private final Ledger ledger;

    public RabbitCheckedListeners(Ledger ledger) {
        this.ledger = ledger;
    }

    @RabbitListener(id = "ledger-checked", queues = "${ledger.rabbit.checked-queue}")
    @IdempotentListener
    public void on(Message message) {
        String body = new String(message.getBody(), StandardCharsets.UTF_8);
        CALLS.computeIfAbsent("checked-" + body.split(":")[0], k -> new AtomicInteger()).incrementAndGet();
        if (body.contains("poison")) {
            throw new IllegalStateException("cannot book this message");
        }
        ledger.write("checked", body);
    }

    @RabbitListener(id = "ledger-manual", queues = "${ledger.rabbit.manual-queue}", ackMode = "MANUAL")
    @IdempotentListener
    public void onManual(Message message, Channel channel) throws IOException {
        String body = new String(message.getBody(), StandardCharsets.UTF_8);
        CALLS.computeIfAbsent("manual-" + body.split(":")[0], k -> new AtomicInteger()).incrementAndGet();
        ledger.write("manual", body);
        channel.basicAck(message.getMessageProperties().getDeliveryTag(), false);
    }
}
