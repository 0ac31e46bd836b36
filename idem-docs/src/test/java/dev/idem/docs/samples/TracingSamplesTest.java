package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.IdempotencyKey;
import dev.idem.Fingerprint;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxRelay;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The plain Java tracing sample run as printed, on SQLite, with the OpenTelemetry SDK's in-memory exporter. */
class TracingSamplesTest {

    @Test
    @DisplayName("tracing-plain: the claim is an event of the request's span; the event keeps its traceparent; the relay's PRODUCER span is its child")
    void plain() throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        List<OutboxMessage> published = new CopyOnWriteArrayList<>();
        try (TestDatabase db = RealServices.sqlite();
             OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                     .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                     .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build()) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            store.migrate(Duration.ofSeconds(60));
            TracingSamples.Traced sample = TracingSamples.plain(store, otel, published::add);
            sample.outbox().migrate();
            Span request = otel.getTracer("test").spanBuilder("POST /payments").setSpanKind(SpanKind.SERVER).startSpan();
            try (OutboxRelay relay = sample.relay(); var ignored = request.makeCurrent()) {
                Outcome outcome = sample.idem().execute(Scope.parse("user:alice POST /payments"), IdempotencyKey.of("pay-1"),
                        Fingerprint.none(), execution -> {
                            try (Connection c = db.dataSource().getConnection()) {
                                c.setAutoCommit(false);
                                sample.outbox().append(c, "payment", "p-1", "PaymentCaptured", "{}".getBytes(StandardCharsets.UTF_8));
                                c.commit();
                            }
                            return StoredResponse.of(201, new byte[0]);
                        });
                assertThat(outcome).isInstanceOf(Outcome.Executed.class);
                request.end();
                Eventually.await("the relay published the event", Duration.ofSeconds(30), () -> !published.isEmpty());
            }
            SpanData server = exporter.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().orElseThrow();
            assertThat(server.getEvents()).first().satisfies(e -> assertThat(e.getAttributes().get(OpenTelemetryIdemListener.OUTCOME))
                    .isEqualTo("acquired"));
            assertThat(published.get(0).headers().get("traceparent")).contains(server.getTraceId(), server.getSpanId());
            Eventually.await("the PRODUCER span ended", Duration.ofSeconds(30),
                    () -> exporter.getFinishedSpanItems().stream().anyMatch(s -> s.getKind() == SpanKind.PRODUCER));
            SpanData producer = exporter.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.PRODUCER).findFirst().orElseThrow();
            assertThat(producer.getParentSpanId()).isEqualTo(server.getSpanId());
        }
    }
}
