package dev.idem.demo.ledger;

import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Kafka broker for the whole test run ({@link KafkaBroker}, child JVM), started by the first
 * test class that uses this extension and closed with the run's root store. These tests always start
 * their own broker: they create topics and read fresh groups' offsets. If it cannot start, the class
 * is skipped with a message naming Kafka, or fails under {@code IDEM_REQUIRE_SERVICES=all}.
 */
final class TestBroker implements BeforeAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TestBroker.class);
    private static volatile KafkaBroker broker;

    @Override
    public void beforeAll(ExtensionContext context) {
        Started started = context.getRoot().getStore(NAMESPACE).computeIfAbsent("broker", key -> Started.start(), Started.class);
        if (started.broker == null) {
            RealServices.unavailable("kafka", started.failure);
        }
        broker = started.broker;
    }

    /** The broker; set before a test class with {@code @ExtendWith(TestBroker.class)} runs. */
    static KafkaBroker broker() {
        KafkaBroker b = broker;
        if (b == null) {
            throw new IllegalStateException("no broker: annotate the test class with @ExtendWith(TestBroker.class)");
        }
        return b;
    }

    private record Started(KafkaBroker broker, String failure) implements AutoCloseable {
        static Started start() {
            try {
                KafkaBroker b = KafkaBroker.start();
                System.out.println("[ledger-consumer] started a Kafka broker at " + b.bootstrapServers() + " in "
                        + b.startTime().toMillis() + " ms");
                return new Started(b, null);
            } catch (Exception | LinkageError e) {
                return new Started(null, "a broker from org.apache.kafka:kafka_2.13 could not be started: " + e);
            }
        }

        @Override
        public void close() {
            if (broker != null) {
                broker.close();
            }
        }
    }
}
