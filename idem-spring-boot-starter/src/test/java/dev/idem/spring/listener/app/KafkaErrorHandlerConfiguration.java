package dev.idem.spring.listener.app;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

/** An application's own error handler for its Kafka listener containers, as a common configuration has it: a few quick retries, then skip. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("ledger.kafka.error-handler-retries")
public class KafkaErrorHandlerConfiguration {

    @Bean
    DefaultErrorHandler kafkaErrorHandler(@Value("${ledger.kafka.error-handler-retries}") long retries) {
        return new DefaultErrorHandler(new FixedBackOff(0, retries));
    }
}
