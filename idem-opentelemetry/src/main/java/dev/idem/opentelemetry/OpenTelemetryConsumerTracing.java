package dev.idem.opentelemetry;

import dev.idem.inbox.consumer.ConsumerTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

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
 *
 * <p>A listener framework's deliveries (the Spring Boot starter's {@code @IdempotentListener}
 * methods) go through {@link #process}, which adds the messaging system, the destination and the
 * outcome the work reports.
 */
public final class OpenTelemetryConsumerTracing implements ConsumerTracing {
    private static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");

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
        SpanBuilder builder = span("process " + source, consumer)
                .setParent(headers.extract(Context.current(), delivery == null ? Map.of() : delivery));
        Spans.within(builder.startSpan(), () -> {
            work.run();
            return null;
        });
    }

    /**
     * Runs one delivery of a listener framework in a CONSUMER span named {@code process <destination>}
     * with {@code messaging.system}, {@code messaging.destination.name}, the consumer name and the
     * {@link OpenTelemetryIdemListener#OUTCOME outcome} the work reports. A single message's headers give
     * the span's parent; a batch's span is linked to each message's trace context instead.
     *
     * @param system      {@code kafka}, {@code rabbitmq}
     * @param destination the topic or queue, or null if the framework hid it
     * @param messages    each message's headers, as text
     */
    public <T, E extends Throwable> T process(String system, String destination, String consumer,
                                              List<Map<String, String>> messages, Delivery<T, E> work) throws E {
        SpanBuilder builder = span("process " + (destination == null ? system : destination), consumer).setAttribute(SYSTEM, system);
        if (destination != null) {
            builder.setAttribute(DESTINATION, destination);
        }
        if (messages.size() == 1) {
            builder.setParent(headers.extract(Context.current(), messages.get(0)));
        } else {
            for (Map<String, String> message : messages) {
                SpanContext linked = Span.fromContext(headers.extract(Context.root(), message)).getSpanContext();
                if (linked.isValid()) {
                    builder.addLink(linked);
                }
            }
        }
        Span span = builder.startSpan();
        return Spans.within(span, () -> work.run(outcome -> span.setAttribute(OpenTelemetryIdemListener.OUTCOME, outcome)));
    }

    private SpanBuilder span(String name, String consumer) {
        SpanBuilder builder = tracer.spanBuilder(name).setSpanKind(SpanKind.CONSUMER).setAttribute(OPERATION_TYPE, "process");
        if (consumer != null) {
            builder.setAttribute(CONSUMER_GROUP, consumer);
        }
        return builder;
    }

    /** A listener framework's handling of one delivery; it reports its outcome ({@code processed}, {@code duplicate} ...). */
    @FunctionalInterface
    public interface Delivery<T, E extends Throwable> {
        T run(Consumer<String> outcome) throws E;
    }

    @Override
    public String toString() {
        return "OpenTelemetryConsumerTracing[CONSUMER spans continuing the delivery's trace]";
    }
}
