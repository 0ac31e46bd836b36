package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.opentelemetry.OpenTelemetryConsumerTracing;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.opentelemetry.TraceContextHeaders;
import dev.idem.spring.internal.BootAutoConfigurations;
import dev.idem.spring.internal.listener.ListenerTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * OpenTelemetry for idem, when the application has dev.idem:idem-opentelemetry on its class path and
 * an {@link OpenTelemetry} bean (Spring Boot's, or its own):
 * <ul>
 * <li>an {@link OpenTelemetryIdemListener} bean, which the starter attaches to its {@link Idem} like every
 * {@code IdemListener} bean, so claims, replays, in-progress answers, takeovers, phases and lease losses
 * become events of the current span (the HTTP server span of an {@code @Idempotent} request, the span
 * around an {@code @IdempotentMethod} call, the CONSUMER span of an {@code @IdempotentListener} delivery);</li>
 * <li>{@link TraceContextHeaders} and {@link OpenTelemetryConsumerTracing} beans, for the outboxes
 * ({@code Outbox.builder(...).headers(...)}) and idem consumers ({@code ConsumerBuilder.tracing(...)}) the
 * application builds;</li>
 * <li>{@code @IdempotentListener} methods continue the producer's trace: each delivery runs (claim, method,
 * commit) in a CONSUMER span whose parent is the message's W3C {@code traceparent} header.</li>
 * </ul>
 */
@AutoConfiguration(before = IdemAutoConfiguration.class,
        afterName = BootAutoConfigurations.OPENTELEMETRY_SDK)
@ConditionalOnClass({Idem.class, OpenTelemetry.class, OpenTelemetryIdemListener.class})
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
@ConditionalOnBean(OpenTelemetry.class)
public class IdemOpenTelemetryAutoConfiguration {

    /** Span events for the engine's events. */
    @Bean
    @ConditionalOnMissingBean
    public OpenTelemetryIdemListener idemOpenTelemetryListener() {
        return new OpenTelemetryIdemListener();
    }

    /** The current trace context as outbox event headers. */
    @Bean
    @ConditionalOnMissingBean
    public TraceContextHeaders idemTraceContextHeaders(OpenTelemetry openTelemetry) {
        return TraceContextHeaders.of(openTelemetry);
    }

    /** CONSUMER spans for idem's consumers, continuing the producer's trace. */
    @Bean
    @ConditionalOnMissingBean
    public OpenTelemetryConsumerTracing idemConsumerTracing(OpenTelemetry openTelemetry) {
        return OpenTelemetryConsumerTracing.of(openTelemetry);
    }

    /** The {@code @IdempotentListener} deliveries' CONSUMER spans, by the consumer tracing's mechanism. */
    @Bean
    @ConditionalOnMissingBean
    ListenerTracing idemListenerTracing(OpenTelemetryConsumerTracing tracing) {
        return (system, destination, consumer, messages, work) -> tracing.process(system, destination, consumer, messages.get(), work::run);
    }
}
