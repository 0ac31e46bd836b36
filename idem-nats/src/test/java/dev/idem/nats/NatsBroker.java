package dev.idem.nats;

import dev.idem.testing.RealServices;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

/**
 * The real NATS server with JetStream tests run against: {@code IDEM_NATS_URL}, else
 * nats://127.0.0.1:4222 (the services the README lists for tests). If it cannot be reached, or has no JetStream, the test is
 * skipped with a message naming {@code nats}, or fails under {@code IDEM_REQUIRE_SERVICES=all}.
 */
final class NatsBroker {
    private NatsBroker() {
    }

    /** A new connection that does not reconnect (a closed connection stays closed). */
    static Connection connect(String name) {
        String url = RealServices.natsUrl();
        Options options = new Options.Builder().server(url).connectionName(name).connectionTimeout(Duration.ofSeconds(5))
                .noReconnect().errorListener(new io.nats.client.ErrorListener() { }).build();
        Connection connection;
        try {
            connection = Nats.connect(options);
        } catch (IOException e) {
            RealServices.unavailable("nats", "connecting to " + url + " failed: " + e);
            throw new AssertionError("unreachable");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to NATS", e);
        }
        try {
            connection.jetStreamManagement().getAccountStatistics();
        } catch (Exception e) {
            closeQuietly(connection);
            RealServices.unavailable("nats", "the server at " + url + " has no JetStream (start it with -js): " + e);
        }
        return connection;
    }

    static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A stream or consumer name no other test run uses. */
    static String unique(String prefix) {
        return "IDEM_TEST_" + prefix.toUpperCase(Locale.ROOT) + "_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase(Locale.ROOT);
    }
}
