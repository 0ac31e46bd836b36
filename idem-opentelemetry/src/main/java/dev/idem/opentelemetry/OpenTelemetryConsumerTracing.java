package dev.idem.opentelemetry;

import dev.idem.inbox.consumer.ConsumerTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Map;
import java.util.Objects;

/**
 * Each delivery an idem consumer handles gets a {@link SpanKind#CONSUMER CONSUMER} span, the child of
 * the trace context in its headers (what {@link TraceContextHeaders} stored in the outbox, sent by the
 * relay): the consumer's processing joins the producer's trace. The handler runs with that span
 * current, so its own spans and idem's span events land in it.
 *
 * <pre>{@code
 * IdempotentKafkaConsumer.<String, String>builder(inbox)
 *         .tracing(OpenTelemetryConsumerTracing.of(openTelemetry))
 *         ...
 * }</pre>
 *
 * The span is named {@code process <source>} and carries {@code messaging.operation.type=process}
 * and the consumer name; never a header's value or the payload. A handler's exception marks it as an
 * error with the exception's class only (its message is the application's and may quote data).
 */
public final class OpenTelemetryConsumerTracing implements ConsumerTracing {
    private static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");

    private final Tracer tracer;
    private final TraceContextHeaders headers;

    private OpenTelemetryConsumerTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer("dev.idem");
        this.headers = TraceContextHeaders.of(openTelemetry);
    }

    public static OpenTelemetryConsumerTracing of(OpenTelemetry openTelemetry) {
        return new OpenTelemetryConsumerTracing(Objects.requireNonNull(openTelemetry, "openTelemetry is null"));
    }

    @Override
    public void around(String consumer, String source, Map<String, String> delivery, Work work) throws Exception {
        Context parent = headers.extract(Context.current(), delivery == null ? Map.of() : delivery);
        var builder = tracer.spanBuilder("process " + source).setSpanKind(SpanKind.CONSUMER).setParent(parent)
                .setAttribute(OPERATION_TYPE, "process");
        if (consumer != null) {
            builder.setAttribute(CONSUMER_GROUP, consumer);
        }
        Span span = builder.startSpan();
        try (Scope ignored = span.makeCurrent()) {
            work.run();
        } catch (Exception | Error e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getName());
            throw e;
        } finally {
            span.end();
        }
    }

    @Override
    public String toString() {
        return "OpenTelemetryConsumerTracing[CONSUMER spans continuing the delivery's trace]";
    }
}
