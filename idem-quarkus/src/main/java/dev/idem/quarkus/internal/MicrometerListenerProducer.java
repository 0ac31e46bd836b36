package dev.idem.quarkus.internal;

import dev.idem.micrometer.MicrometerIdemListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The engine's meters on the application's registry (Quarkus' root registry, which every registry the
 * application has receives). A bean only when the application has {@code quarkus-micrometer} and
 * {@code quarkus.idem.metrics.enabled} is true: the build step adds it by name, so that Micrometer's
 * classes are never loaded without it.
 */
@Singleton
public class MicrometerListenerProducer {

    @Produces
    @Singleton
    @Unremovable
    public MicrometerIdemListener idemMicrometerListener(MeterRegistry registry) {
        return new MicrometerIdemListener(registry);
    }
}
