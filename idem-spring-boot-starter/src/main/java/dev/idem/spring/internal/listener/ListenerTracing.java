package dev.idem.spring.internal.listener;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The optional tracing around each delivery of an {@code @IdempotentListener} method (claim, method,
 * commit): the starter supplies one built on idem-opentelemetry when the application has an
 * OpenTelemetry bean; without it the work just runs. An implementation runs the work once and lets its
 * exception through unchanged.
 */
public interface ListenerTracing {

    /** Runs the work, reporting nowhere. */
    ListenerTracing NONE = new ListenerTracing() {
        @Override
        public Object around(String system, String destination, String consumer, Supplier<List<Map<String, String>>> messages,
                             Work work) throws Throwable {
            return work.run(outcome -> { });
        }
    };

    /**
     * Runs {@code work} for one delivery.
     *
     * @param system      the broker's {@link ListenerBroker#system() messaging system}
     * @param destination the topic or queue, or null
     * @param consumer    the inbox consumer name
     * @param messages    each message's headers, as text; read only by a tracing that uses them (the
     *                    conversion costs, for a large batch)
     */
    Object around(String system, String destination, String consumer, Supplier<List<Map<String, String>>> messages, Work work)
            throws Throwable;

    /** The advice's handling of the delivery; it reports its outcome ({@code processed}, {@code duplicate} ...). */
    @FunctionalInterface
    interface Work {
        Object run(Consumer<String> outcome) throws Throwable;
    }
}
