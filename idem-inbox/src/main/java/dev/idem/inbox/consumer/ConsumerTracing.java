package dev.idem.inbox.consumer;

import java.util.Map;

/**
 * Wraps the handling of each delivery, for tracing: an implementation reads the delivery's headers
 * (e.g. W3C {@code traceparent}), and runs the work inside a span that continues the producer's
 * trace. Set with {@link ConsumerBuilder#tracing}; idem-opentelemetry has one. The default does
 * nothing around the work.
 *
 * <p>The work is the {@link MessageHandler}'s call, on the inbox's transaction; it may run more than
 * once for one delivery (a failed batch is redone one message at a time), and each run is wrapped.
 * An implementation must run the work exactly once and let its exception through unchanged.
 */
public interface ConsumerTracing {

    /** Does nothing around the work. */
    ConsumerTracing NONE = new ConsumerTracing() {
    };

    /**
     * Runs {@code work} for one delivery.
     *
     * @param consumer the configured inbox consumer name; null when the broker supplies it (Kafka's group id)
     * @param source   what the consumer reads, e.g. {@code topics [payments]} or {@code queue 'payments'}
     * @param headers  the delivery's headers, as the quarantine would keep them
     */
    default void around(String consumer, String source, Map<String, String> headers, Work work) throws Exception {
        work.run();
    }

    /** The handler's work for one delivery. */
    @FunctionalInterface
    interface Work {
        void run() throws Exception;
    }
}
