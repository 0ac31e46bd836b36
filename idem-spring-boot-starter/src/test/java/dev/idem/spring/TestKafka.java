package dev.idem.spring;

import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's real Kafka broker, started in a child JVM before its tests and stopped after them
 * ({@code @RegisterExtension static final TestKafka KAFKA = new TestKafka();}). If it cannot start,
 * the class is skipped with a message naming Kafka, or fails where {@code IDEM_REQUIRE_SERVICES} asks.
 */
public final class TestKafka implements BeforeAllCallback, AfterAllCallback {
    private KafkaBroker broker;

    @Override
    public void beforeAll(ExtensionContext context) {
        try {
            broker = KafkaBroker.start();
        } catch (Exception | LinkageError e) {
            RealServices.unavailable("kafka", "a broker from org.apache.kafka:kafka_2.13 could not be started: " + e);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    /** The started broker. */
    public KafkaBroker broker() {
        if (broker == null) {
            throw new IllegalStateException("no Kafka broker: register TestKafka as a static @RegisterExtension field");
        }
        return broker;
    }
}
