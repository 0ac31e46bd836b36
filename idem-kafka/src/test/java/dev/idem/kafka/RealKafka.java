package dev.idem.kafka;

import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real Kafka broker of this test run: {@code IDEM_KAFKA_BOOTSTRAP} if set, else one
 * {@link KafkaBroker} started in a child JVM on first use and stopped when the run ends (the root
 * store closes it; a JVM shutdown hook backs that up). If it cannot start, the test class is skipped
 * with a message naming Kafka, or fails where {@code IDEM_REQUIRE_SERVICES} is {@code all} or lists
 * {@code kafka}.
 */
final class RealKafka implements BeforeAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RealKafka.class);
    private static volatile String bootstrapServers;

    @Override
    public void beforeAll(ExtensionContext context) {
        Broker broker = context.getRoot().getStore(NAMESPACE).computeIfAbsent("broker", key -> Broker.resolve(), Broker.class);
        if (broker.failure != null) {
            RealServices.unavailable("kafka", broker.failure);
        }
        bootstrapServers = broker.bootstrapServers;
    }

    /** The broker's bootstrap servers; set before a test class that uses this extension runs. */
    static String bootstrapServers() {
        String servers = bootstrapServers;
        if (servers == null) {
            throw new IllegalStateException("no Kafka broker: annotate the test class with @ExtendWith(RealKafka.class)");
        }
        return servers;
    }

    /** The resolved broker, or why there is none; closed with the root store at the end of the run. */
    static final class Broker implements AutoCloseable {
        final KafkaBroker started;
        final String bootstrapServers;
        final String failure;

        private Broker(KafkaBroker started, String bootstrapServers, String failure) {
            this.started = started;
            this.bootstrapServers = bootstrapServers;
            this.failure = failure;
        }

        static Broker resolve() {
            String configured = System.getenv("IDEM_KAFKA_BOOTSTRAP");
            if (configured != null && !configured.isBlank()) {
                String servers = configured.trim();
                String silent = KafkaBroker.answers(servers);
                return silent == null ? new Broker(null, servers, null)
                        : new Broker(null, null, "IDEM_KAFKA_BOOTSTRAP=" + servers + " does not answer: " + silent);
            }
            try {
                KafkaBroker broker = KafkaBroker.start();
                System.out.println("[idem-kafka] started a Kafka broker (KRaft, child JVM) at " + broker.bootstrapServers() + " in "
                        + broker.startTime().toMillis() + " ms");
                return new Broker(broker, broker.bootstrapServers(), null);
            } catch (Exception e) {
                return new Broker(null, null, "no IDEM_KAFKA_BOOTSTRAP, and a broker from org.apache.kafka:kafka_2.13 could not be started: " + e);
            } catch (LinkageError e) {
                return new Broker(null, null, "kafka-clients or the broker's classes are missing: " + e);
            }
        }

        @Override
        public void close() {
            if (started != null) {
                started.close();
            }
        }

        Duration startTime() {
            return started == null ? Duration.ZERO : started.startTime();
        }
    }
}
