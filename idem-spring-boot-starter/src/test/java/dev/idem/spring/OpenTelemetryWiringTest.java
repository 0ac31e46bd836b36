package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.NonDurableMemoryStore;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With idem-opentelemetry and an {@link OpenTelemetry} bean, the starter's engine records its events
 * on the current span (here around an {@code @IdempotentMethod} call); without the bean, nothing.
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
                assertThat(event.getAttributes().get(OpenTelemetryIdemListener.OPERATION)).isEqualTo(Greetings.class.getName() + "#greet");
                assertThat(event.getAttributes().toString()).doesNotContain("secret-name");
            }
        }); // the context closes the SDK bean
    }

    @Test
    void withoutAnOpenTelemetryBeanThereIsNoListener() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OpenTelemetryIdemListener.class));
    }
}
