package dev.idem.docs.samples;

import static dev.idem.docs.samples.Entries.insertLedgerEntry;

import dev.idem.Idem;
import dev.idem.inbox.Inbox;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.opentelemetry.OpenTelemetryConsumerTracing;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.opentelemetry.OpenTelemetryOutboxPublisher;
import dev.idem.opentelemetry.TraceContextHeaders;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxPublisher;
import dev.idem.outbox.OutboxRelay;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Map;

/**
 * The tracing samples of docs/operations.md for plain Java, as they are printed: run by
 * {@code TracingSamplesTest} and, the consumer's on a real broker, by {@code BrokerSamplesTest}.
 */
public final class TracingSamples {
    private TracingSamples() {
    }

    /** What the plain Java sample built; the caller closes the relay. */
    public record Traced(Idem idem, Outbox outbox, OutboxRelay relay) {
    }

    public static Traced plain(JdbcIdempotencyStore store, OpenTelemetry openTelemetry, OutboxPublisher publisher) {
        // sample: tracing-plain
        Idem idem = Idem.builder().store(store).listener(new OpenTelemetryIdemListener()).build();     // events on the current span
        Outbox outbox = Outbox.builder(store).headers(TraceContextHeaders.of(openTelemetry)).build();  // each event keeps its traceparent
        OutboxRelay relay = OutboxRelay.builder(outbox, OpenTelemetryOutboxPublisher.wrap(publisher, openTelemetry))
                .build().start();                                                                      // a PRODUCER span per publish
        // end sample
        return new Traced(idem, outbox, relay);
    }

    public static IdempotentKafkaConsumer<String, String> consumer(Inbox inbox, OpenTelemetry openTelemetry, Map<String, Object> config) {
        // sample: tracing-consumer
        IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(inbox)
                .consumerConfig(config)
                .topics("payments")
                .tracing(OpenTelemetryConsumerTracing.of(openTelemetry))   // a CONSUMER span per record, under its traceparent
                .handler((connection, record) -> insertLedgerEntry(connection, record.value()))
                .build().start();
        // end sample
        return consumer;
    }
}
