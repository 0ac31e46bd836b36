package dev.idem.spring.listener.app;

import dev.idem.spring.IdempotentListener;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A RabbitMQ batch listener (the container hands it up to five messages at once) with a poison
 * message (its body contains {@code poison}: it always fails) and a flaky one (it ends in
 * {@code " flaky"}: its first two calls fail); it counts its calls per message number.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("ledger.rabbit.poison-batch-queue")
public class RabbitPoisonBatchListener {
    /** Calls of the method per message number, for the in-process tests. */
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private final Ledger ledger;

    public RabbitPoisonBatchListener(Ledger ledger) {
        this.ledger = ledger;
    }

    /** Batches of up to five messages, as an application that consumes in batches configures its container; static, so the listener bean does not depend on itself. */
    @Bean
    static SimpleRabbitListenerContainerFactory poisonBatchFactory(ConnectionFactory connections) {
        SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
        factory.setConnectionFactory(connections);
        factory.setBatchListener(true);
        factory.setConsumerBatchEnabled(true);
        factory.setBatchSize(5);
        factory.setPrefetchCount(5);
        factory.setReceiveTimeout(200L);
        return factory;
    }

    @RabbitListener(id = "ledger-poison-batch", queues = "${ledger.rabbit.poison-batch-queue}", containerFactory = "poisonBatchFactory")
    @IdempotentListener
    public void on(List<Message> messages) {
        List<String> bodies = new ArrayList<>();
        boolean fail = false;
        for (Message message : messages) {
            String body = new String(message.getBody(), StandardCharsets.UTF_8);
            int calls = CALLS.computeIfAbsent(body.split(":")[0], k -> new AtomicInteger()).incrementAndGet();
            fail |= body.contains("poison") || body.endsWith(" flaky") && calls <= 2;
            bodies.add(body.replace(" flaky", ""));
        }
        if (fail) {
            throw new IllegalStateException("cannot book this batch");
        }
        ledger.writeAll("poison-batch", bodies);
    }
}
