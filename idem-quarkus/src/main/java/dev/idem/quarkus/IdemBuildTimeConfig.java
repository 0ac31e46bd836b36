package dev.idem.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * idem's settings fixed when the application is built, under {@code quarkus.idem.*}: which of the
 * application's observability extensions the engine reports to.
 */
@ConfigMapping(prefix = "quarkus.idem")
@ConfigRoot(phase = ConfigPhase.BUILD_AND_RUN_TIME_FIXED)
public interface IdemBuildTimeConfig {
    /** The engine's meters. */
    Metrics metrics();

    /** The engine's span events. */
    Tracing tracing();

    /** Meters ({@code quarkus-micrometer}). */
    interface Metrics {
        /**
         * Whether the engine counts its claims, lost leases and purges on the application's
         * {@code MeterRegistry} (idem-micrometer's {@code MicrometerIdemListener}), when the application
         * has {@code quarkus-micrometer}.
         */
        @WithDefault("true")
        boolean enabled();
    }

    /** Tracing ({@code quarkus-opentelemetry}). */
    interface Tracing {
        /**
         * Whether the engine adds its events to the current span (idem-opentelemetry's
         * {@code OpenTelemetryIdemListener}), when the application has {@code quarkus-opentelemetry}.
         */
        @WithDefault("true")
        boolean enabled();
    }
}
