package dev.idem.spring.internal.listener;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@value #DELIVERIES} by {@code consumer} and {@code outcome}: per listener method, how many
 * deliveries ran the method, were all duplicates, ended in the quarantine or failed for a redelivery.
 */
public final class MicrometerListenerMeters implements ListenerMeters {
    /** Deliveries of {@code @IdempotentListener} methods by consumer and outcome. */
    public static final String DELIVERIES = "idem.listener.deliveries";

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public MicrometerListenerMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void delivered(String consumer, String outcome) {
        counters.computeIfAbsent(consumer + '\n' + outcome, k -> Counter.builder(DELIVERIES)
                .description("Deliveries of @IdempotentListener methods, by consumer and outcome")
                .tag("consumer", consumer).tag("outcome", outcome)
                .register(registry)).increment();
    }
}
