package dev.idem.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.idem.testing.RealServices;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * The real RabbitMQ tests run against: {@code IDEM_RABBITMQ_URI} (an {@code amqp://} URI), else
 * 127.0.0.1:5672 as guest/guest (the services the README lists for tests). If it cannot be reached the test is skipped with a
 * message naming {@code rabbitmq}, or fails under {@code IDEM_REQUIRE_SERVICES=all}.
 */
final class RabbitBroker {
    private RabbitBroker() {
    }

    /** A factory for the test broker, without automatic recovery (a killed connection stays dead). */
    static ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(RealServices.rabbitmqUri());
        } catch (java.net.URISyntaxException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException("IDEM_RABBITMQ_URI is not a usable amqp URI", e);
        }
        factory.setAutomaticRecoveryEnabled(false);
        factory.setConnectionTimeout(5_000);
        return factory;
    }

    /** A new connection to the test broker; skips (or fails, if required) when the broker refuses it. */
    static Connection connect(String name) {
        ConnectionFactory factory = factory();
        try {
            return factory.newConnection(name);
        } catch (IOException | TimeoutException e) {
            RealServices.unavailable("rabbitmq", "connecting to " + factory.getHost() + ":" + factory.getPort() + " failed: " + e);
            throw new AssertionError("unreachable");
        }
    }

    /** A queue or exchange name no other test run uses. */
    static String unique(String prefix) {
        return "idem-test-" + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
