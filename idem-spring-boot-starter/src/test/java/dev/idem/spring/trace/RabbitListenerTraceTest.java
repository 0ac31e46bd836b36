package dev.idem.spring.trace;

import static dev.idem.spring.trace.Traces.attributeValues;
import static dev.idem.spring.trace.Traces.awaitUntil;
import static dev.idem.spring.trace.Traces.find;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.spring.trace.Traces.Traceparent;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An {@code @IdempotentListener} {@code @RabbitListener} on the real RabbitMQ and PostgreSQL continues
 * the trace in each message's {@code traceparent} header: one CONSUMER span per delivery, the child of
 * the producer's span, with the outcome: processed, duplicate (the same message id again), and for a
 * poison message failed (an error, redelivered) then quarantined (settled, not an error). Boot's
 * OpenTelemetry SDK exports to an in-memory exporter.
 */
class RabbitListenerTraceTest {
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");

    @Test
    void eachDeliveryIsAConsumerSpanUnderItsMessagesTraceparentWithItsOutcome() throws Exception {
        String uri = RealServices.rabbitmqUri();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String queue = "trace-bookings-" + suffix;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        try (TestDatabase db = RealServices.postgres(); Connection connection = factory.newConnection();
             Channel channel = connection.createChannel()) {
            channel.queueDeclare(queue, false, false, false, null);
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(TraceApplication.class).web(WebApplicationType.NONE).run(
                    "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                    "--spring.rabbitmq.addresses=" + uri,
                    "--trace.queue=" + queue,
                    "--idem.inbox.max-attempts=2",
                    "--management.tracing.sampling.probability=1.0",
                    "--management.opentelemetry.tracing.export.schedule-delay=50ms",
                    "--logging.level.root=ERROR")) {
                InMemorySpanExporter exporter = app.getBean(InMemorySpanExporter.class);
                Traceparent booking = Traceparent.random();
                Traceparent poison = Traceparent.random();
                String bookingId = "trace-booking-id-" + suffix;

                publish(channel, queue, bookingId, booking, "booking-body-" + suffix);
                publish(channel, queue, bookingId, booking, "booking-body-" + suffix);  // the same message again
                publish(channel, queue, "trace-poison-id-" + suffix, poison, "poison-body-" + suffix);
                awaitUntil(() -> find(exporter, s -> s.getKind() == SpanKind.CONSUMER).size() == 4, "four deliveries' spans");
                awaitUntil(() -> messages(channel, queue) == 0, "the queue drained");

                List<SpanData> bookings = find(exporter, s -> s.getKind() == SpanKind.CONSUMER && s.getTraceId().equals(booking.traceId()));
                List<SpanData> poisons = find(exporter, s -> s.getKind() == SpanKind.CONSUMER && s.getTraceId().equals(poison.traceId()));
                assertThat(bookings).extracting(s -> s.getAttributes().get(OpenTelemetryIdemListener.OUTCOME))
                        .containsExactly("processed", "duplicate");
                assertThat(poisons).extracting(s -> s.getAttributes().get(OpenTelemetryIdemListener.OUTCOME))
                        .containsExactly("failed", "quarantined");
                assertThat(bookings).allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo(booking.spanId()));
                assertThat(poisons).allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo(poison.spanId()));
                assertThat(poisons).extracting(s -> s.getStatus().getStatusCode()).containsExactly(StatusCode.ERROR, StatusCode.UNSET);
                assertThat(poisons.get(0).getStatus().getDescription()).isEqualTo(IllegalStateException.class.getName());
                SpanData processed = bookings.get(0);
                assertThat(processed.getName()).isEqualTo("process " + queue);
                assertThat(processed.getAttributes().asMap()).containsEntry(SYSTEM, "rabbitmq").containsEntry(DESTINATION, queue);
                assertThat(RabbitBookings.SPANS).as("each call ran in its delivery's span (a duplicate makes none)")
                        .extracting(s -> s.getSpanId()).containsExactly(processed.getSpanId(), poisons.get(0).getSpanId(), poisons.get(1).getSpanId());
                for (SpanData span : exporter.getFinishedSpanItems()) {
                    assertThat(attributeValues(span)).as("attributes of %s", span.getName())
                            .allSatisfy(value -> assertThat(value).doesNotContain(bookingId, "trace-poison-id", "body-" + suffix));
                }
            } finally {
                channel.queueDelete(queue);
                RabbitBookings.SPANS.clear();
            }
        }
    }

    private static long messages(Channel channel, String queue) {
        try {
            return channel.messageCount(queue);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void publish(Channel channel, String queue, String messageId, Traceparent traceparent, String body) throws Exception {
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
                .headers(Map.of("traceparent", traceparent.header())).build();
        channel.basicPublish("", queue, properties, body.getBytes(StandardCharsets.UTF_8));
    }
}
