package dev.idem.opentelemetry;

import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxPublisher;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Objects;

/**
 * A {@link OutboxPublisher} that wraps each publish in a {@link SpanKind#PRODUCER PRODUCER} span, the
 * child of the trace context the event was appended in (its stored headers): the relay's send shows
 * in the trace of the request that produced the event.
 *
 * <pre>{@code
 * OutboxRelay.builder(outbox, OpenTelemetryOutboxPublisher.wrap(kafkaPublisher, openTelemetry)).build().start();
 * }</pre>
 *
 * The span is named {@code publish <event type>} and carries {@code messaging.operation.type=send};
 * never the payload. The headers sent are the stored ones, so the consumer's span is a sibling of
 * this one under the producer's span, in the same trace.
 */
public final class OpenTelemetryOutboxPublisher implements OutboxPublisher {
    private static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");

    private final OutboxPublisher delegate;
    private final Tracer tracer;
    private final TraceContextHeaders headers;

    private OpenTelemetryOutboxPublisher(OutboxPublisher delegate, OpenTelemetry openTelemetry) {
        this.delegate = delegate;
        this.tracer = openTelemetry.getTracer("dev.idem");
        this.headers = TraceContextHeaders.of(openTelemetry);
    }

    public static OpenTelemetryOutboxPublisher wrap(OutboxPublisher delegate, OpenTelemetry openTelemetry) {
        return new OpenTelemetryOutboxPublisher(Objects.requireNonNull(delegate, "delegate is null"),
                Objects.requireNonNull(openTelemetry, "openTelemetry is null"));
    }

    @Override
    public void publish(OutboxMessage message) throws Exception {
        Span span = tracer.spanBuilder("publish " + message.eventType()).setSpanKind(SpanKind.PRODUCER)
                .setParent(headers.extract(Context.root(), message.headers()))
                .setAttribute(OPERATION_TYPE, "send")
                .startSpan();
        Spans.within(span, () -> {
            delegate.publish(message);
            return null;
        });
    }

    @Override
    public String toString() {
        return "OpenTelemetryOutboxPublisher[" + delegate + "]";
    }
}
