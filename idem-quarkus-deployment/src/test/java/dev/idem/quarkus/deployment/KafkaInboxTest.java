package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.kafka.KafkaHeaders;
import dev.idem.kafka.KafkaMessageIds;
import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A SmallRye Reactive Messaging {@code @Incoming} method on a real Kafka broker applies each message once
 * through the extension's {@link Inbox} bean: a message delivered again (same id) is not applied again.
 */
class KafkaInboxTest {
    private static final String TOPIC = "payments";
    /**
     * The broker's address, for the class's second copy: QuarkusUnitTest loads this class again in the
     * application's class loader, where its static fields are initialised anew.
     */
    private static final String SERVERS_PROPERTY = KafkaInboxTest.class.getName() + ".servers";
    /** Warnings only from Kafka's clients (the broker's readiness probe logs each attempt), before the application's own log settings. */
    private static final Logger KAFKA_LOG = warningsOnly("org.apache.kafka");
    /** The broker, in the copy that started it (the other copy's is null); its shutdown hook stops it otherwise. */
    private static KafkaBroker broker;
    private static final String BOOTSTRAP_SERVERS = bootstrapServers();

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Ledger.class, EffectsTable.class, Http.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", RealServices.postgresUrl())
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("kafka.bootstrap.servers", BOOTSTRAP_SERVERS)
            .overrideConfigKey("mp.messaging.incoming.payments.topic", TOPIC)
            .overrideConfigKey("mp.messaging.incoming.payments.auto.offset.reset", "earliest")
            .overrideConfigKey("quarkus.log.category.\"org.apache.kafka\".level", "WARN"); // not every client's configuration

    @Inject
    DataSource dataSource;

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            System.clearProperty(SERVERS_PROPERTY);
            broker.close();
        }
    }

    @Test
    void aMessageDeliveredAgainIsAppliedOnce() throws Exception {
        String run = UUID.randomUUID().toString();
        String payment = "payment-" + run;
        String next = "next-" + run;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP_SERVERS,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            producer.send(record("m-1-" + run, payment)).get();
            producer.send(record("m-1-" + run, payment)).get(); // the same message again, as after a lost acknowledgement
            producer.send(record("m-2-" + run, next)).get();
        }

        // One partition, in order: once the last message is applied, the redelivery before it was handled.
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (Http.effects(dataSource, next) == 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        assertThat(Http.effects(dataSource, next)).as("the last message applied").isEqualTo(1);
        assertThat(Http.effects(dataSource, payment)).as("the message sent twice").isEqualTo(1);
    }

    private static ProducerRecord<String, String> record(String messageId, String value) {
        ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, value);
        record.headers().add(KafkaHeaders.MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    private static Logger warningsOnly(String category) {
        Logger logger = Logger.getLogger(category);
        logger.setLevel(Level.WARNING);
        return logger;
    }

    private static String bootstrapServers() {
        synchronized (System.getProperties()) {
            String started = System.getProperty(SERVERS_PROPERTY);
            if (started != null) {
                return started;
            }
            try {
                broker = KafkaBroker.start();
                broker.createTopic(TOPIC, 1);
                System.setProperty(SERVERS_PROPERTY, broker.bootstrapServers());
                return broker.bootstrapServers();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** The consumer of docs/quarkus.md: its write and the inbox's claim commit together. */
    // sample: quarkus-inbox
    @ApplicationScoped
    public static class Ledger {
        @Inject
        Inbox inbox;                                  // the extension's, on the default datasource

        @Incoming("payments")
        @Blocking                                     // the inbox's calls block: a worker thread
        public void apply(ConsumerRecord<String, String> record) {
            // The message-id header (an idem outbox writes it), else the record's coordinates.
            InboxMessage message = InboxMessage.of(KafkaMessageIds.standard().messageId(record));
            inbox.process("ledger", message, (connection, claimed) -> {   // one transaction: the claim and the writes
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO idem_quarkus_effects (what) VALUES (?)")) {
                    insert.setString(1, record.value());
                    insert.executeUpdate();
                }
            });                                       // a message seen before: not run, InboxOutcome duplicate
        }
    }
    // end sample
}
