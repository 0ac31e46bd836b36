package dev.idem.docs.samples;

import static dev.idem.docs.samples.Entries.insertEntry;
import static dev.idem.docs.samples.Entries.insertLedgerEntry;

import dev.idem.inbox.Inbox;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxRelay;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.kafka.KafkaOutboxPublisher;
import dev.idem.nats.NatsInboxConsumer;
import dev.idem.nats.NatsOutboxPublisher;
import dev.idem.rabbitmq.RabbitInboxConsumer;
import dev.idem.rabbitmq.RabbitOutboxPublisher;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The broker adapters' samples of docs/messaging.md, as they are printed; each returns what it started, for the caller to close. */
public final class BrokerSamples {
    private BrokerSamples() {
    }

    public static IdempotentKafkaConsumer<String, String> kafkaConsumer(DataSource dataSource, Inbox inbox, String servers) {
        // sample: messaging-kafka-consumer
        IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(inbox)
                .consumerConfig(Map.of("bootstrap.servers", servers, "group.id", "ledger",
                        "key.deserializer", StringDeserializer.class, "value.deserializer", StringDeserializer.class))
                .topics("payments")
                .handler((connection, record) -> insertLedgerEntry(connection, record.value()))  // on the inbox's transaction
                .build().start();                                                               // close() on shutdown
        // end sample
        return consumer;
    }

    /** What the Kafka publisher sample started. */
    public record KafkaRelay(KafkaOutboxPublisher publisher, OutboxRelay relay) {
    }

    public static KafkaRelay kafkaPublisher(Outbox outbox, String servers) {
        // sample: messaging-kafka-publisher
        KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", servers)).topic("payments").build();
        OutboxRelay relay = OutboxRelay.builder(outbox, publisher).build().start();
        // end sample
        return new KafkaRelay(publisher, relay);
    }

    /** What the RabbitMQ sample started. */
    public record RabbitPair(RabbitInboxConsumer consumer, OutboxRelay relay) {
    }

    public static RabbitPair rabbitmq(Inbox inbox, Outbox outbox, com.rabbitmq.client.Connection rabbitConnection, String queue,
            String exchange) throws Exception {
        // sample: messaging-rabbitmq
        RabbitInboxConsumer consumer = RabbitInboxConsumer.builder(inbox)
                .connection(rabbitConnection).queue(queue).consumerName("ledger").prefetch(250)
                .handler((sql, delivery) -> insertEntry(sql, delivery.getBody()))     // your writes, on the inbox's transaction
                .build().start();
        OutboxRelay relay = OutboxRelay.builder(outbox,
                RabbitOutboxPublisher.builder(rabbitConnection).exchange(exchange).routingKey("payment.events").build()).build().start();
        // end sample
        return new RabbitPair(consumer, relay);
    }

    /** What the NATS sample started. */
    public record NatsPair(NatsInboxConsumer consumer, OutboxRelay relay) {
    }

    public static NatsPair nats(Inbox inbox, Outbox outbox, io.nats.client.Connection nats, String stream, String subject) throws Exception {
        // sample: messaging-nats
        NatsInboxConsumer consumer = NatsInboxConsumer.builder(inbox)
                .connection(nats).stream(stream).durable("ledger").consumerName("ledger")
                .batchSize(256).ackWait(Duration.ofSeconds(30)).maxDeliver(20).nakDelay(Duration.ofSeconds(1))
                .handler((sql, message) -> insertEntry(sql, message.getData()))
                .build().start();
        OutboxRelay relay = OutboxRelay.builder(outbox, NatsOutboxPublisher.builder(nats).subject(subject).build()).build().start();
        // end sample
        return new NatsPair(consumer, relay);
    }
}
