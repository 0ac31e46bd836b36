package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * OpenTelemetry for idem, when the application has dev.idem:idem-opentelemetry on its class path and
 * an {@link OpenTelemetry} bean (Spring Boot's, or its own): an {@link OpenTelemetryIdemListener}
 * bean, which the starter attaches to its {@link Idem} like every {@code IdemListener} bean, so
 * claims, replays, in-progress answers, takeovers, phases and lease losses become events of the
 * current span (the HTTP server span of an {@code @Idempotent} request, the span around an
 * {@code @IdempotentMethod} call). Outboxes and consumers the application builds take
 * {@code TraceContextHeaders} and {@code OpenTelemetryConsumerTracing} themselves.
 */
@AutoConfiguration(before = IdemAutoConfiguration.class,
        afterName = "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration")
@ConditionalOnClass({Idem.class, OpenTelemetry.class, OpenTelemetryIdemListener.class})
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
public class IdemOpenTelemetryAutoConfiguration {

    /** Span events for the engine's events. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(OpenTelemetry.class)
    public OpenTelemetryIdemListener idemOpenTelemetryListener() {
        return new OpenTelemetryIdemListener();
    }
}
