package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.idem.inbox.Inbox;
import dev.idem.outbox.Outbox;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import dev.idem.opentelemetry.TraceContextHeaders;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The broker adapters' samples run as printed against real brokers, on PostgreSQL: an event appended
 * to the outbox reaches the consumer's ledger once, and the same message sent again is skipped by the inbox.
 */
class BrokerSamplesTest {
    private static final Duration WITHIN = Duration.ofSeconds(60);
    private static final byte[] EVENT = "{\"paymentId\":\"p-1\",\"amount\":100}".getBytes(StandardCharsets.UTF_8);

    @Test
    @DisplayName("messaging-kafka-consumer and messaging-kafka-publisher: the relayed event is applied once; the same message-id again is skipped")
    void kafka() throws Exception {
        KafkaBroker broker = startKafka();
        try (broker; TestDatabase db = RealServices.postgres()) {
            broker.createTopic("payments", 1);
            Inbox inbox = inboxAndOutboxOn(db);
            Outbox outbox = Outbox.builder(db.dataSource()).build();
            String servers = broker.bootstrapServers();
            // A new group starts at the end of the topic (auto.offset.reset=latest): start this one at the beginning.
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
                admin.alterConsumerGroupOffsets("ledger", Map.of(new TopicPartition("payments", 0), new OffsetAndMetadata(0))).all().get();

                IdempotentKafkaConsumer<String, String> consumer = BrokerSamples.kafkaConsumer(db.dataSource(), inbox, servers);
                BrokerSamples.KafkaRelay sample = BrokerSamples.kafkaPublisher(outbox, servers);
                try {
                    String messageId = append(db, outbox);
                    Eventually.await("the relayed event is in the ledger", WITHIN, () -> Entries.count(db.dataSource()) == 1);
                    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", servers),
                            new StringSerializer(), new StringSerializer())) {
                        ProducerRecord<String, String> again = new ProducerRecord<>("payments", "p-1", new String(EVENT, StandardCharsets.UTF_8));
                        again.headers().add("message-id", messageId.getBytes(StandardCharsets.UTF_8));
                        producer.send(again).get();
                    }
                    Eventually.await("the consumer committed past the repeat", WITHIN, () -> committedOffset(admin) == 2);
                } finally {
                    sample.relay().close();
                    sample.publisher().close();
                    consumer.close();
                }
            }
            assertThat(Entries.count(db.dataSource())).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("tracing-consumer: a record carrying a producer's traceparent is handled in a CONSUMER span under that span")
    void kafkaTracing() throws Exception {
        KafkaBroker broker = startKafka();
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
        try (broker; openTelemetry; TestDatabase db = RealServices.postgres()) {
            broker.createTopic("payments", 1);
            Inbox inbox = inboxAndOutboxOn(db);
            String servers = broker.bootstrapServers();
            IdempotentKafkaConsumer<String, String> consumer = TracingSamples.consumer(inbox, openTelemetry, Map.of(
                    "bootstrap.servers", servers, "group.id", "traced-ledger", "auto.offset.reset", "earliest",
                    "key.deserializer", StringDeserializer.class, "value.deserializer", StringDeserializer.class));
            Span producing = openTelemetry.getTracer("test").spanBuilder("producer").startSpan();
            try (consumer; KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", servers),
                    new StringSerializer(), new StringSerializer())) {
                ProducerRecord<String, String> record = new ProducerRecord<>("payments", "p-1", new String(EVENT, StandardCharsets.UTF_8));
                record.headers().add("message-id", "m-traced-1".getBytes(StandardCharsets.UTF_8));
                try (var ignored = producing.makeCurrent()) {
                    TraceContextHeaders.of(openTelemetry).get().forEach((name, value) ->
                            record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
                } finally {
                    producing.end();
                }
                producer.send(record).get();
                Eventually.await("the record is in the ledger", WITHIN, () -> Entries.count(db.dataSource()) == 1);
                Eventually.await("the consumer's span ended", WITHIN,
                        () -> exporter.getFinishedSpanItems().stream().anyMatch(s -> s.getKind() == SpanKind.CONSUMER));
            }
            SpanData consuming = exporter.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.CONSUMER).findFirst().orElseThrow();
            assertThat(consuming.getTraceId()).isEqualTo(producing.getSpanContext().getTraceId());
            assertThat(consuming.getParentSpanId()).isEqualTo(producing.getSpanContext().getSpanId());
        }
    }

    @Test
    @DisplayName("messaging-rabbitmq: the relayed event is applied once; the same message-id again is acknowledged and skipped")
    void rabbitmq() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(RealServices.rabbitmqUri());
        String exchange = "idem-docs-" + UUID.randomUUID();
        try (TestDatabase db = RealServices.postgres(); com.rabbitmq.client.Connection rabbit = factory.newConnection("idem-docs-samples");
             Channel admin = rabbit.createChannel()) {
            admin.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, false);
            String queue = admin.queueDeclare("idem-docs-" + UUID.randomUUID(), false, false, false, null).getQueue();
            admin.queueBind(queue, exchange, "payment.events");
            Inbox inbox = inboxAndOutboxOn(db);
            Outbox outbox = Outbox.builder(db.dataSource()).build();

            BrokerSamples.RabbitPair sample = BrokerSamples.rabbitmq(inbox, outbox, rabbit, queue, exchange);
            try {
                String messageId = append(db, outbox);
                Eventually.await("the relayed event is in the ledger", WITHIN, () -> Entries.count(db.dataSource()) == 1);
                admin.basicPublish(exchange, "payment.events", new AMQP.BasicProperties.Builder().messageId(messageId).build(), EVENT);
                Eventually.await("both deliveries are acknowledged", WITHIN, () -> sample.consumer().acknowledged() == 2);
            } finally {
                sample.relay().close();
                sample.consumer().close();
                admin.queueDelete(queue);
                admin.exchangeDelete(exchange);
            }
            assertThat(Entries.count(db.dataSource())).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("messaging-nats: the relayed event reaches the ledger through JetStream once, acknowledged after the commit")
    void nats() throws Exception {
        String stream = "IDEM_DOCS_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase(java.util.Locale.ROOT);
        String subject = "idem.docs." + stream.toLowerCase(java.util.Locale.ROOT);
        io.nats.client.Connection nats = Nats.connect(RealServices.natsUrl());
        try (TestDatabase db = RealServices.postgres()) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(stream).subjects(subject).build());
            try {
                Inbox inbox = inboxAndOutboxOn(db);
                Outbox outbox = Outbox.builder(db.dataSource()).build();

                BrokerSamples.NatsPair sample = BrokerSamples.nats(inbox, outbox, nats, stream, subject);
                try {
                    append(db, outbox);
                    Eventually.await("the relayed event is acknowledged", WITHIN, () -> sample.consumer().acknowledged() == 1);
                } finally {
                    sample.relay().close();
                    sample.consumer().close();
                }
            } finally {
                jsm.deleteStream(stream);
            }
            assertThat(Entries.count(db.dataSource())).isEqualTo(1);
        } finally {
            nats.close();
        }
    }

    private static KafkaBroker startKafka() {
        try {
            return KafkaBroker.start();
        } catch (Exception e) {
            RealServices.unavailable("kafka", "a broker from org.apache.kafka:kafka_2.13 could not be started: " + e);
            throw new AssertionError("unreachable");
        }
    }

    /** The ledger, inbox and outbox tables on {@code db}; returns the inbox the consumers deduplicate with. */
    private static Inbox inboxAndOutboxOn(TestDatabase db) throws SQLException {
        Entries.createTable(db.dataSource());
        Inbox inbox = Inbox.builder(db.dataSource()).build();
        inbox.migrate();
        Outbox.builder(db.dataSource()).build().migrate();
        return inbox;
    }

    /** Appends the event in a committed business transaction; returns its stable message id. */
    private static String append(TestDatabase db, Outbox outbox) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            String id = outbox.append(c, "payment", "p-1", "PaymentCaptured", EVENT).messageId().toString();
            c.commit();
            return id;
        }
    }

    private static long committedOffset(Admin admin) throws Exception {
        OffsetAndMetadata committed = admin.listConsumerGroupOffsets("ledger").partitionsToOffsetAndMetadata().get()
                .get(new TopicPartition("payments", 0));
        return committed == null ? -1 : committed.offset();
    }
}
