package dev.idem.spring.internal.admin;

import dev.idem.admin.AdminListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** {@code idem.admin.actions{action, outcome}}: every action an operator asked for, refused ones included. */
public final class MicrometerAdminListener implements AdminListener {
    public static final String ACTIONS = "idem.admin.actions";

    private final MeterRegistry registry;

    public MicrometerAdminListener(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void acted(String action, String actor, String outcome) {
        // The actor is left out: a tag per operator would grow without bound.
        Counter.builder(ACTIONS).description("Actions operators asked of idem's admin API").tag("action", action).tag("outcome", outcome)
                .register(registry).increment();
    }
}
