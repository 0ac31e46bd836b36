package dev.idem.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The span events of a run that fails after a phase and of the retry that resumes it (a real SQLite
 * store), the consumer span of a delivery whose handler throws, and a listener framework's delivery
 * spans (a batch, a failure): with the OpenTelemetry SDK's in-memory exporter.
 */
class SpanEventsTest {
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();

    @AfterEach
    void close() {
        otel.close();
    }

    @Test
    void aRetryAfterAFailedRunShowsTheResumedAndTheNewPhase() throws Exception {
        try (TestDatabase db = RealServices.sqlite()) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            store.migrate(Duration.ofSeconds(60));
            Idem idem = Idem.builder().store(store).listener(new OpenTelemetryIdemListener()).build();
            Scope scope = Scope.parse("user:bob POST /transfers");
            IdempotencyKey key = IdempotencyKey.of("k-transfer-1");

            inSpan("first", () -> assertThatThrownBy(() -> idem.execute(scope, key, Fingerprint.none(), execution -> {
                execution.phase("debit", k -> "debited");
                throw new IllegalStateException("the credit side is down");
            })).isInstanceOf(IllegalStateException.class));
            inSpan("retry", () -> assertThat(idem.execute(scope, key, Fingerprint.none(), execution -> {
                execution.phase("debit", k -> "debited again");
                execution.phase("credit", k -> "credited");
                return StoredResponse.of(201, new byte[0]);
            })).isInstanceOf(Outcome.Executed.class));

            assertThat(events("first")).containsExactly(
                    Map.of("idem.operation", "POST /transfers", "idem.outcome", "acquired", "idem.attempt", 1L),
                    Map.of("idem.operation", "POST /transfers", "idem.phase", "debit", "idem.phase.from_checkpoint", false));
            assertThat(events("retry")).containsExactly(
                    Map.of("idem.operation", "POST /transfers", "idem.outcome", "takeover", "idem.attempt", 2L),
                    Map.of("idem.operation", "POST /transfers", "idem.phase", "debit", "idem.phase.from_checkpoint", true),
                    Map.of("idem.operation", "POST /transfers", "idem.phase", "credit", "idem.phase.from_checkpoint", false));
        }
    }

    @Test
    void aDeliveryGetsAConsumerSpanUnderItsTraceparentAndAFailureMarksItWithTheClassOnly() {
        Span producer = otel.getTracer("test").spanBuilder("producer").startSpan();
        Map<String, String> headers;
        try (var ignored = producer.makeCurrent()) {
            headers = TraceContextHeaders.of(otel).get();
        } finally {
            producer.end();
        }
        assertThat(headers).containsKey("traceparent");
        OpenTelemetryConsumerTracing tracing = OpenTelemetryConsumerTracing.of(otel);

        assertThatThrownBy(() -> tracing.around("ledger", "queue 'payments'", headers, () -> {
            throw new IllegalArgumentException("payload says secret-amount");
        })).isInstanceOf(IllegalArgumentException.class).hasMessage("payload says secret-amount");

        SpanData consumer = exporter.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.CONSUMER)
                .findFirst().orElseThrow();
        assertThat(consumer.getName()).isEqualTo("process queue 'payments'");
        assertThat(consumer.getTraceId()).isEqualTo(producer.getSpanContext().getTraceId());
        assertThat(consumer.getParentSpanId()).isEqualTo(producer.getSpanContext().getSpanId());
        assertThat(consumer.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(consumer.getStatus().getDescription()).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(consumer.getAttributes().toString()).doesNotContain("secret-amount");
        assertThat(consumer.getEvents()).isEmpty();
        assertThat(TraceContextHeaders.of(otel).get()).as("outside a span: no context to store").isEmpty();
    }

    @Test
    void aListenerBatchIsLinkedToEachMessagesTraceAndReportsItsOutcome() {
        Map<String, String> first = producerHeaders("first producer");
        Map<String, String> second = producerHeaders("second producer");
        OpenTelemetryConsumerTracing tracing = OpenTelemetryConsumerTracing.of(otel);

        String answer = tracing.process("rabbitmq", "payments", "ledger", List.of(first, second, Map.of()), outcome -> {
            assertThat(Span.current().getSpanContext().isValid()).as("the work runs in the span").isTrue();
            outcome.accept("processed");
            return "done";
        });

        assertThat(answer).isEqualTo("done");
        SpanData batch = consumerSpans().get(0);
        assertThat(batch.getName()).isEqualTo("process payments");
        assertThat(batch.getParentSpanContext().isValid()).as("a batch has no single parent").isFalse();
        assertThat(batch.getLinks()).extracting(link -> link.getSpanContext().getTraceId())
                .containsExactly(spanNamed("first producer").getTraceId(), spanNamed("second producer").getTraceId());
        assertThat(asMap(batch.getAttributes())).containsEntry("messaging.system", "rabbitmq")
                .containsEntry("messaging.destination.name", "payments").containsEntry("messaging.consumer.group.name", "ledger")
                .containsEntry("messaging.operation.type", "process").containsEntry("idem.outcome", "processed");
    }

    @Test
    void aListenerDeliveryThatFailsIsAnErrorByClassWithTheOutcomeItReported() {
        Map<String, String> headers = producerHeaders("producer");
        OpenTelemetryConsumerTracing tracing = OpenTelemetryConsumerTracing.of(otel);

        assertThatThrownBy(() -> tracing.process("kafka", null, "ledger", List.of(headers), outcome -> {
            outcome.accept("failed");
            throw new java.io.IOException("disk says secret-amount");
        })).isInstanceOf(java.io.IOException.class).hasMessage("disk says secret-amount");

        SpanData failed = consumerSpans().get(0);
        assertThat(failed.getName()).as("no destination: the system").isEqualTo("process kafka");
        assertThat(failed.getParentSpanId()).isEqualTo(spanNamed("producer").getSpanId());
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failed.getStatus().getDescription()).isEqualTo(java.io.IOException.class.getName());
        assertThat(asMap(failed.getAttributes())).containsEntry("idem.outcome", "failed").doesNotContainKey("messaging.destination.name");
        assertThat(failed.getAttributes().toString()).doesNotContain("secret-amount");
    }

    private Map<String, String> producerHeaders(String name) {
        Span producer = otel.getTracer("test").spanBuilder(name).startSpan();
        try (var ignored = producer.makeCurrent()) {
            return TraceContextHeaders.of(otel).get();
        } finally {
            producer.end();
        }
    }

    private List<SpanData> consumerSpans() {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.CONSUMER).toList();
    }

    private SpanData spanNamed(String name) {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
    }

    private void inSpan(String name, Runnable work) {
        Span span = otel.getTracer("test").spanBuilder(name).startSpan();
        try (var ignored = span.makeCurrent()) {
            work.run();
        } finally {
            span.end();
        }
    }

    private List<Map<String, Object>> events(String spanName) {
        SpanData span = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(spanName)).findFirst().orElseThrow();
        return span.getEvents().stream().map(EventData::getAttributes).map(SpanEventsTest::asMap).toList();
    }

    private static Map<String, Object> asMap(Attributes attributes) {
        Map<String, Object> map = new java.util.HashMap<>();
        attributes.forEach((k, v) -> map.put(k.getKey(), v));
        return map;
    }
}
