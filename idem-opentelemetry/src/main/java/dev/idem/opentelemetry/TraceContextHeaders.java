package dev.idem.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The current trace context as message headers (W3C {@code traceparent} and {@code tracestate}
 * with the default propagator), for {@code Outbox.builder(...).headers(...)}: every appended event
 * carries the trace of the transaction that appended it, and the relay's publisher sends it.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder(store).headers(TraceContextHeaders.of(openTelemetry)).build();
 * }</pre>
 *
 * Empty outside a span. Uses the {@link OpenTelemetry} instance's propagators, so a configured
 * propagator (B3, baggage) is what goes into the headers.
 */
public final class TraceContextHeaders implements Supplier<Map<String, String>> {
    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final TextMapPropagator propagator;

    private TraceContextHeaders(TextMapPropagator propagator) {
        this.propagator = propagator;
    }

    public static TraceContextHeaders of(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry is null");
        return new TraceContextHeaders(openTelemetry.getPropagators().getTextMapPropagator());
    }

    /** The current context's headers. */
    @Override
    public Map<String, String> get() {
        Map<String, String> headers = new LinkedHashMap<>();
        propagator.inject(Context.current(), headers, (carrier, key, value) -> carrier.put(key, value));
        return headers;
    }

    /** The context that {@code headers} carry, as a child of {@code parent} (the current context, usually). */
    Context extract(Context parent, Map<String, String> headers) {
        return propagator.extract(parent, headers, GETTER);
    }
}
