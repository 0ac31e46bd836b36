package dev.idem.spring.trace;

import dev.idem.kafka.KafkaOutboxPublisher;
import dev.idem.opentelemetry.OpenTelemetryOutboxPublisher;
import dev.idem.opentelemetry.TraceContextHeaders;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxRelay;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * A payments service as a user writes it with the starter and Spring Boot's OpenTelemetry starter: the
 * {@code @Idempotent} endpoint appends an outbox event (its outbox takes the injected
 * {@link TraceContextHeaders}), a relay publishes it to Kafka, and an {@code @IdempotentListener}
 * {@code @KafkaListener} records it ({@code trace.topic}); an {@code @IdempotentListener}
 * {@code @RabbitListener} books what a queue brings ({@code trace.queue}). The spans go to an
 * in-memory exporter.
 */
@SpringBootApplication
public class TraceApplication {

    /** Boot's tracer provider exports to every SpanExporter bean. */
    @Bean
    InMemorySpanExporter spanExporter() {
        return InMemorySpanExporter.create();
    }

    @Bean
    Outbox outbox(DataSource dataSource, TraceContextHeaders traceContext) {
        Outbox outbox = Outbox.builder(dataSource).headers(traceContext).build();
        outbox.migrate();
        return outbox;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("trace.topic")
    KafkaOutboxPublisher kafkaOutboxPublisher(@Value("${spring.kafka.bootstrap-servers}") String servers,
                                              @Value("${trace.topic}") String topic) {
        return KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", servers)).topic(topic).build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("trace.topic")
    OutboxRelay outboxRelay(Outbox outbox, KafkaOutboxPublisher publisher, OpenTelemetry openTelemetry) {
        return OutboxRelay.builder(outbox, OpenTelemetryOutboxPublisher.wrap(publisher, openTelemetry))
                .pollInterval(Duration.ofMillis(50)).build().start();
    }
}
