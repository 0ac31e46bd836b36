package dev.idem.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Optional;

/**
 * idem's settings fixed when the application is built, under {@code quarkus.idem.*}: which store keeps
 * the keys, and which of the application's observability extensions the engine reports to.
 */
@ConfigMapping(prefix = "quarkus.idem")
@ConfigRoot(phase = ConfigPhase.BUILD_AND_RUN_TIME_FIXED)
public interface IdemBuildTimeConfig {
    /**
     * Which store keeps the keys: {@code jdbc} (a table on the application's default datasource) or
     * {@code redis} (a Redis server, with {@code dev.idem:idem-redis} on the class path). Default:
     * {@code jdbc} when the application has a default JDBC datasource; without one the build asks for it.
     */
    Optional<StoreKind> store();

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

    /** The stores this extension can build. */
    enum StoreKind {
        /** A {@code JdbcIdempotencyStore} on the application's default (Agroal) datasource. */
        JDBC,
        /** idem-redis's {@code RedisIdempotencyStore}, at {@code quarkus.idem.redis.url} or the application's {@code quarkus.redis.hosts}. */
        REDIS
    }
}
