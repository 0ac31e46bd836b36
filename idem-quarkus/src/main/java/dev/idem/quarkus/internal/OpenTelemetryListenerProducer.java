package dev.idem.quarkus.internal;

import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The engine's span events on the current span (the request's server span that quarkus-opentelemetry
 * starts). A bean only when the application has {@code quarkus-opentelemetry} and
 * {@code quarkus.idem.tracing.enabled} is true: the build step adds it by name, so that OpenTelemetry's
 * classes are never loaded without it.
 */
@Singleton
public class OpenTelemetryListenerProducer {

    @Produces
    @Singleton
    @Unremovable
    public OpenTelemetryIdemListener idemOpenTelemetryListener() {
        return new OpenTelemetryIdemListener();
    }
}
