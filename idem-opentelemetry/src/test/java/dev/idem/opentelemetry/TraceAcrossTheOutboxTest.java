package dev.idem.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.inbox.Inbox;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.kafka.KafkaOutboxPublisher;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxRelay;
import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * One trace from a request through the outbox, the relay, a real Kafka broker (child JVM) and the
 * idem-kafka inbox consumer: the request's server span (as an HTTP server instrumentation makes it)
 * runs an idempotent operation that appends an outbox event; the relay publishes it in a PRODUCER
 * span; the consumer handles it in a CONSUMER span continuing the stored {@code traceparent}. The
 * OpenTelemetry SDK's in-memory exporter collects the spans; PostgreSQL holds store, outbox and inbox.
 */
class TraceAcrossTheOutboxTest {
    private static final Duration WITHIN = Duration.ofSeconds(90);

    @Test
    void oneTraceFromTheRequestThroughTheOutboxAndKafkaToTheInboxConsumer() throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        Tracer tracer = otel.getTracer("test");
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "trace-" + suffix;
        String key = "secret-key-" + suffix;
        String payload = "{\"paymentId\":\"payload-" + suffix + "\"}";
        List<String> handledInTraces = new CopyOnWriteArrayList<>();

        try (KafkaBroker broker = KafkaBroker.start(); TestDatabase db = RealServices.postgres(); otel) {
            broker.createTopic(topic, 1);
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            store.migrate(Duration.ofSeconds(60));
            Idem idem = Idem.builder().store(store).listener(new OpenTelemetryIdemListener()).build();
            Outbox outbox = Outbox.builder(store).headers(TraceContextHeaders.of(otel)).build();
            outbox.migrate();
            Inbox inbox = Inbox.builder(store).build();
            inbox.migrate();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE ledger (payment TEXT NOT NULL)");
            }

            IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(inbox)
                    .consumerConfig(Map.of("bootstrap.servers", broker.bootstrapServers(), "group.id", "ledger-" + suffix,
                            "auto.offset.reset", "earliest",
                            "key.deserializer", StringDeserializer.class, "value.deserializer", StringDeserializer.class))
                    .topics(topic)
                    .tracing(OpenTelemetryConsumerTracing.of(otel))
                    .handler((connection, record) -> {
                        handledInTraces.add(Span.current().getSpanContext().getTraceId());
                        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO ledger (payment) VALUES (?)")) {
                            ps.setString(1, record.value());
                            ps.executeUpdate();
                        }
                    })
                    .build().start();
            KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", broker.bootstrapServers()))
                    .topic(topic).build();
            OutboxRelay relay = OutboxRelay.builder(outbox, OpenTelemetryOutboxPublisher.wrap(publisher, otel)).build().start();
            String traceId;
            try {
                Scope scope = Scope.parse("user:alice POST /payments");
                Fingerprint body = Fingerprint.builder().part("body", payload).build();
                // The request's server span, as the HTTP server instrumentation starts it around the filter.
                Span request = tracer.spanBuilder("POST /payments").setSpanKind(SpanKind.SERVER).startSpan();
                traceId = request.getSpanContext().getTraceId();
                try (io.opentelemetry.context.Scope ignored = request.makeCurrent()) {
                    Outcome first = idem.execute(scope, IdempotencyKey.of(key), body, execution -> {
                        execution.phase("record", downstreamKey -> appendEvent(db, outbox, payload));
                        return StoredResponse.of(201, payload.getBytes(StandardCharsets.UTF_8));
                    });
                    assertThat(first).isInstanceOf(Outcome.Executed.class);
                } finally {
                    request.end();
                }
                Span retry = tracer.spanBuilder("POST /payments").setSpanKind(SpanKind.SERVER).startSpan();
                try (io.opentelemetry.context.Scope ignored = retry.makeCurrent()) {
                    assertThat(idem.execute(scope, IdempotencyKey.of(key), body, execution -> {
                        throw new AssertionError("a replay runs nothing");
                    })).isInstanceOf(Outcome.Replayed.class);
                } finally {
                    retry.end();
                }
                awaitUntil(() -> !handledInTraces.isEmpty() && spans(exporter, SpanKind.CONSUMER).size() == 1, "the consumer's span");
            } finally {
                relay.close();
                publisher.close();
                consumer.close();
            }

            assertThat(handledInTraces).containsExactly(traceId);
            SpanData server = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getKind() == SpanKind.SERVER && s.getTraceId().equals(traceId)).findFirst().orElseThrow();
            SpanData producer = spans(exporter, SpanKind.PRODUCER).get(0);
            SpanData consuming = spans(exporter, SpanKind.CONSUMER).get(0);
            assertThat(List.of(server.getTraceId(), producer.getTraceId(), consuming.getTraceId())).containsOnly(traceId);
            assertThat(producer.getParentSpanId()).as("the relay's send under the request").isEqualTo(server.getSpanId());
            assertThat(consuming.getParentSpanId()).as("the consumer continues the stored traceparent").isEqualTo(server.getSpanId());
            assertThat(consuming.getName()).isEqualTo("process topics [" + topic + "]");

            assertThat(server.getEvents()).extracting(EventData::getName).containsExactly("idem.claim", "idem.phase");
            assertThat(server.getEvents().get(0).getAttributes().get(OpenTelemetryIdemListener.OUTCOME)).isEqualTo("acquired");
            assertThat(server.getEvents().get(0).getAttributes().get(OpenTelemetryIdemListener.OPERATION)).isEqualTo("POST /payments");
            assertThat(server.getEvents().get(1).getAttributes().get(OpenTelemetryIdemListener.PHASE)).isEqualTo("record");
            SpanData replay = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getKind() == SpanKind.SERVER && !s.getTraceId().equals(traceId)).findFirst().orElseThrow();
            assertThat(replay.getEvents()).singleElement()
                    .satisfies(e -> assertThat(e.getAttributes().get(OpenTelemetryIdemListener.OUTCOME)).isEqualTo("replayed"));

            for (SpanData span : exporter.getFinishedSpanItems()) {
                for (String value : attributeValues(span)) {
                    assertThat(value).as("attribute of %s", span.getName()).doesNotContain(key, "payload-" + suffix, "alice");
                }
            }
        }
    }

    private static String appendEvent(TestDatabase db, Outbox outbox, String payload) throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            String id = outbox.append(c, "payment", "p-1", "PaymentCaptured", payload.getBytes(StandardCharsets.UTF_8)).messageId().toString();
            c.commit();
            return id;
        }
    }

    private static List<SpanData> spans(InMemorySpanExporter exporter, SpanKind kind) {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getKind() == kind).toList();
    }

    private static List<String> attributeValues(SpanData span) {
        List<String> values = new ArrayList<>();
        span.getAttributes().forEach((AttributeKey<?> k, Object v) -> values.add(String.valueOf(v)));
        for (EventData event : span.getEvents()) {
            event.getAttributes().forEach((AttributeKey<?> k, Object v) -> values.add(String.valueOf(v)));
        }
        return values;
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        Instant deadline = Instant.now().plus(WITHIN);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }
}
