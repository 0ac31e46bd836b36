package dev.idem.spring.trace;

import static dev.idem.spring.trace.Traces.attributeValues;
import static dev.idem.spring.trace.Traces.awaitUntil;
import static dev.idem.spring.trace.Traces.find;
import static dev.idem.spring.trace.Traces.only;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.spring.TestKafka;
import dev.idem.spring.trace.Traces.Traceparent;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One trace from a real HTTP request to the {@code @IdempotentListener}: a client sends {@code POST}
 * with an {@code Idempotency-Key} and its own W3C {@code traceparent}; Spring Boot's HTTP server
 * observation (spring-boot-starter-opentelemetry, Micrometer's OpenTelemetry bridge) opens the SERVER
 * span; the {@code @Idempotent} endpoint appends an outbox event with the starter's
 * {@code TraceContextHeaders}; the relay publishes it to a real Kafka broker (child JVM) in a PRODUCER
 * span; the listener handles it in the CONSUMER span the starter opens from the record's
 * {@code traceparent}. Boot's tracer provider exports to an in-memory exporter; PostgreSQL holds the
 * store, the outbox and the inbox.
 */
class HttpRequestTraceTest {
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> CONSUMER = AttributeKey.stringKey("messaging.consumer.group.name");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    @RegisterExtension
    static final TestKafka KAFKA = new TestKafka();


    @Test
    void oneTraceFromTheHttpRequestThroughTheOutboxAndKafkaToTheIdempotentListener() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "trace-payments-" + suffix;
        String key = "trace-secret-key-" + suffix;
        String body = "{\"paymentId\":\"trace-payload-" + suffix + "\"}";
        KAFKA.broker().createTopic(topic, 1);
        try (TestDatabase db = RealServices.postgres()) {
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE trace_ledger (payment TEXT NOT NULL)");
            }
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(TraceApplication.class).run(
                    "--server.port=0",
                    "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                    "--spring.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
                    "--spring.kafka.consumer.auto-offset-reset=earliest",
                    "--trace.topic=" + topic,
                    "--trace.group=trace-" + suffix,
                    "--management.tracing.sampling.probability=1.0",
                    "--management.opentelemetry.tracing.export.schedule-delay=50ms",
                    "--logging.level.root=WARN")) {
                InMemorySpanExporter exporter = app.getBean(InMemorySpanExporter.class);
                URI payments = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + "/trace/payments");
                Traceparent client = Traceparent.random();
                Traceparent retry = Traceparent.random();

                assertThat(post(payments, key, body, client).statusCode()).isEqualTo(201);
                awaitUntil(() -> LedgerListener.RECORDS.size() == 1, "the listener's call");
                assertThat(post(payments, key, body, retry).statusCode()).as("the replay").isEqualTo(201);
                ConsumerRecord<String, String> record = LedgerListener.RECORDS.get(0);
                String messageId = new String(record.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8);
                redeliver(record);  // the same record again, as a producer's retry sends it: a duplicate
                awaitUntil(() -> find(exporter, s -> s.getKind() == SpanKind.CONSUMER).size() == 2
                        && find(exporter, s -> s.getKind() == SpanKind.PRODUCER).size() == 1
                        && find(exporter, s -> s.getKind() == SpanKind.SERVER).size() == 2, "every span exported");

                List<SpanData> spans = exporter.getFinishedSpanItems();
                SpanData server = only(spans, s -> s.getKind() == SpanKind.SERVER && s.getTraceId().equals(client.traceId()));
                SpanData producer = only(spans, s -> s.getKind() == SpanKind.PRODUCER);
                SpanData consumed = only(spans, s -> s.getKind() == SpanKind.CONSUMER && outcome(s).equals("processed"));
                SpanData duplicate = only(spans, s -> s.getKind() == SpanKind.CONSUMER && outcome(s).equals("duplicate"));

                assertThat(server.getParentSpanId()).as("the server span continues the client's traceparent").isEqualTo(client.spanId());
                assertThat(List.of(producer.getTraceId(), consumed.getTraceId(), duplicate.getTraceId())).containsOnly(client.traceId());
                assertThat(producer.getParentSpanId()).as("the relay's send under the request, by the stored traceparent")
                        .isEqualTo(server.getSpanId());
                assertThat(consumed.getParentSpanId()).as("the listener continues the record's traceparent").isEqualTo(server.getSpanId());
                assertThat(LedgerListener.SPANS).as("the listener ran with its CONSUMER span current")
                        .singleElement().satisfies(s -> assertThat(s.getSpanId()).isEqualTo(consumed.getSpanId()));
                assertThat(consumed.getName()).isEqualTo("process " + topic);
                assertThat(consumed.getAttributes().asMap()).containsEntry(SYSTEM, "kafka").containsEntry(DESTINATION, topic)
                        .containsEntry(CONSUMER, "trace-ledger").containsEntry(OpenTelemetryIdemListener.OUTCOME, "processed");

                assertThat(claims(server)).as("the filter's claim on the server span").containsExactly("acquired");
                SpanData replay = only(spans, s -> s.getKind() == SpanKind.SERVER && s.getTraceId().equals(retry.traceId()));
                assertThat(claims(replay)).containsExactly("replayed");

                for (SpanData span : exporter.getFinishedSpanItems()) {
                    assertThat(attributeValues(span)).as("attributes of %s", span.getName())
                            .allSatisfy(value -> assertThat(value).doesNotContain(key, messageId, "trace-payload-" + suffix));
                }
            }
        } finally {
            LedgerListener.RECORDS.clear();
            LedgerListener.SPANS.clear();
        }
    }

    private static HttpResponse<String> post(URI uri, String key, String body, Traceparent traceparent) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Idempotency-Key", key).header("traceparent", traceparent.header())
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void redeliver(ConsumerRecord<String, String> record) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                KAFKA.broker().bootstrapServers(), ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            producer.send(new ProducerRecord<>(record.topic(), null, record.key(), record.value(), record.headers())).get();
        }
    }

    private static String outcome(SpanData span) {
        return String.valueOf(span.getAttributes().get(OpenTelemetryIdemListener.OUTCOME));
    }

    /** The outcomes of the span's idem.claim events. */
    private static List<String> claims(SpanData span) {
        return span.getEvents().stream().filter(e -> e.getName().equals(OpenTelemetryIdemListener.CLAIM_EVENT))
                .map(e -> e.getAttributes().get(OpenTelemetryIdemListener.OUTCOME)).toList();
    }

}
