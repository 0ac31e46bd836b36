package dev.idem.nats.kv;

import dev.idem.testing.NatsCluster;
import dev.idem.testing.RealServices;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/** Connections to the three-node cluster (or the machine's single server) and stores on fresh buckets. */
final class NatsKvTests {
    static final Duration MAX_AGE = Duration.ofDays(2);

    private NatsKvTests() {
    }

    /** A connection to every node of {@code cluster} that reconnects to a surviving one. */
    static Connection connect(NatsCluster cluster) {
        return connect(cluster.clientUrls());
    }

    /** A connection to the machine's NATS server ({@code nats}), skipped or failed as RealServices says when absent. */
    static Connection connectSingle() {
        String url = RealServices.natsUrl();
        try {
            return connect(List.of(url));
        } catch (IllegalStateException e) {
            RealServices.unavailable("nats", "connecting to " + url + " failed: " + e.getMessage());
            throw new AssertionError("unreachable");
        }
    }

    private static Connection connect(List<String> urls) {
        Options options = new Options.Builder().servers(urls.toArray(new String[0])).connectionName("idem-kv-test")
                .connectionTimeout(Duration.ofSeconds(5)).maxReconnects(-1).reconnectWait(Duration.ofMillis(100))
                .errorListener(new io.nats.client.ErrorListener() { }).build();
        try {
            return Nats.connect(options);
        } catch (IOException e) {
            throw new IllegalStateException("cannot connect to " + urls + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to NATS", e);
        }
    }

    /** A bucket name no other test uses. */
    static String freshBucket() {
        return "idem-test-" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
    }

    /** A store on a new bucket with three replicas, checked as in production. */
    static NatsKvIdempotencyStore replicatedStore(Connection connection, String bucket) {
        return NatsKvIdempotencyStore.builder(connection).bucket(bucket).createBucket(3, MAX_AGE).build();
    }

    static void deleteBucket(Connection connection, String bucket) {
        try {
            connection.keyValueManagement().delete(bucket);
        } catch (Exception e) {
            // A bucket left behind on a throwaway cluster is harmless.
        }
    }

    static void close(Connection connection) {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
