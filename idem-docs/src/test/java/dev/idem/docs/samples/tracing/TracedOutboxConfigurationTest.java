package dev.idem.docs.samples.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.Sqlite;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxMessage;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The starter's tracing sample in a Spring Boot application with an {@link OpenTelemetry} bean (here the
 * SDK, as spring-boot-starter-opentelemetry would give it), its DataSource on a SQLite file.
 */
class TracedOutboxConfigurationTest {
    @TempDir
    Path data;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(TracedOutboxConfiguration.class)
    static class App {
        @Bean(destroyMethod = "close")
        OpenTelemetrySdk openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create())).build())
                    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
        }
    }

    @Test
    @DisplayName("tracing-starter-outbox: an event appended in a span keeps that span's traceparent")
    void theInjectedHeadersGoWithEachEvent() throws Exception {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .run("--spring.main.banner-mode=off", "--logging.level.root=WARN",
                        "--spring.datasource.url=" + Sqlite.url(data.resolve("app.db")))) {
            Outbox outbox = app.getBean(Outbox.class);
            Span span = app.getBean(OpenTelemetry.class).getTracer("test").spanBuilder("request").startSpan();
            OutboxMessage appended;
            try (var ignored = span.makeCurrent(); Connection c = app.getBean(DataSource.class).getConnection()) {
                c.setAutoCommit(false);
                appended = outbox.append(c, "payment", "p-1", "PaymentCaptured", "{}".getBytes(StandardCharsets.UTF_8));
                c.commit();
            } finally {
                span.end();
            }
            assertThat(appended.headers().get("traceparent"))   // the flags after it: sampled, and from 1.67 on "random trace id"
                    .startsWith("00-" + span.getSpanContext().getTraceId() + "-" + span.getSpanContext().getSpanId() + "-");
        }
    }
}
