package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.opentelemetry.OpenTelemetryConsumerTracing;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.opentelemetry.TraceContextHeaders;
import dev.idem.spring.internal.listener.IdempotentListenerPostProcessor;
import dev.idem.spring.internal.listener.ListenerTracing;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.NonDurableMemoryStore;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With idem-opentelemetry and an {@link OpenTelemetry} bean, the starter's engine records its events
 * on the current span (here around an {@code @IdempotentMethod} call), and the outbox headers, the
 * consumer tracing and the {@code @IdempotentListener} tracing are beans; without the bean, or without
 * OpenTelemetry on the class path, nothing of it. The listener's spans: {@code trace.HttpRequestTraceTest}.
 */
class OpenTelemetryWiringTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemOpenTelemetryAutoConfiguration.class, IdemAutoConfiguration.class,
                    IdemMethodAutoConfiguration.class))
            .withBean(IdempotencyStore.class, NonDurableMemoryStore::new);

    static class Greetings {
        @IdempotentMethod(key = "#name")
        public String greet(String name) {
            return "hello " + name;
        }
    }

    @Test
    void withAnOpenTelemetryBeanTheEngineAddsSpanEventsWithoutKeys() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
        runner.withBean(OpenTelemetry.class, () -> sdk).withBean(Greetings.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(OpenTelemetryIdemListener.class);
            Greetings greetings = context.getBean(Greetings.class);
            Span span = sdk.getTracer("test").spanBuilder("job").startSpan();
            try (var ignored = span.makeCurrent()) {
                greetings.greet("secret-name");
                greetings.greet("secret-name");
            } finally {
                span.end();
            }
            SpanData job = exporter.getFinishedSpanItems().get(0);
            assertThat(job.getEvents()).extracting(e -> e.getAttributes().get(OpenTelemetryIdemListener.OUTCOME))
                    .containsExactly("acquired", "replayed");
            for (EventData event : job.getEvents()) {
                assertThat(event.getAttributes().get(OpenTelemetryIdemListener.OPERATION)).isEqualTo(Greetings.class.getName() + "#greet(java.lang.String)");
                assertThat(event.getAttributes().toString()).doesNotContain("secret-name");
            }
        }); // the context closes the SDK bean
    }

    @Test
    void withoutAnOpenTelemetryBeanThereIsNoListener() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OpenTelemetryIdemListener.class)
                .doesNotHaveBean(TraceContextHeaders.class).doesNotHaveBean(OpenTelemetryConsumerTracing.class)
                .doesNotHaveBean(ListenerTracing.class));
    }

    @Test
    void withAnOpenTelemetryBeanTheOutboxHeadersTheConsumerTracingAndTheListenerTracingAreBeans() {
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
        runner.withBean(OpenTelemetry.class, () -> sdk).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(TraceContextHeaders.class).hasSingleBean(OpenTelemetryConsumerTracing.class)
                    .hasSingleBean(ListenerTracing.class);
            Span span = sdk.getTracer("test").spanBuilder("request").startSpan();
            try (var ignored = span.makeCurrent()) {
                assertThat(context.getBean(TraceContextHeaders.class).get().get("traceparent")).as("the injected headers carry the current span")
                        .startsWith("00-" + span.getSpanContext().getTraceId() + "-" + span.getSpanContext().getSpanId() + "-");
            } finally {
                span.end();
            }
        });
    }

    @Test
    void theApplicationsOwnTraceContextHeadersWin() {
        TraceContextHeaders own = TraceContextHeaders.of(OpenTelemetry.noop());
        runner.withBean(OpenTelemetry.class, OpenTelemetry::noop).withBean(TraceContextHeaders.class, () -> own)
                .run(context -> assertThat(context).hasNotFailed().getBean(TraceContextHeaders.class).isSameAs(own));
    }

    @Test
    void withoutOpenTelemetryOnTheClassPathTheStarterStartsAndListenersRunUntraced() {
        runner.withConfiguration(AutoConfigurations.of(IdemListenerAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("io.opentelemetry", "dev.idem.opentelemetry"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ListenerTracing.class)
                        .doesNotHaveBean(OpenTelemetryIdemListener.class).hasSingleBean(IdempotentListenerPostProcessor.class));
    }
}
