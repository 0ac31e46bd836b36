package dev.idem.spring.listener.app;

import java.util.Map;
import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The ledger's queue declared as a quorum queue with a delivery limit, as an application declares its queues. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("ledger.rabbit.delivery-limit")
public class RabbitQueueConfiguration {

    @Bean
    Queue ledgerQueue(@Value("${ledger.rabbit.queue}") String name, @Value("${ledger.rabbit.delivery-limit}") int limit) {
        return new Queue(name, true, false, false, Map.of("x-queue-type", "quorum", "x-delivery-limit", limit));
    }
}
