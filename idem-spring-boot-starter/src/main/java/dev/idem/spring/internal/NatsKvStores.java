package dev.idem.spring.internal;

import dev.idem.StoreException;
import dev.idem.nats.kv.NatsKvIdempotencyStore;
import dev.idem.nats.kv.ReplicationCheck;
import dev.idem.spring.IdemProperties;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Builds the NATS JetStream key-value store from {@code idem.nats-kv.*}, on a connection of its own.
 * Only loaded when idem-nats is on the class path and {@code idem.store=nats-kv}.
 */
public final class NatsKvStores {
    private static final String NOT_SHOWN = "(not shown: a URL may hold a password)";

    private NatsKvStores() {
    }

    /** The store's own connection, closed with the context. */
    public static final class Connected implements AutoCloseable {
        private final Connection connection;

        private Connected(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void close() throws InterruptedException {
            connection.close();
        }
    }

    /**
     * @throws InvalidConfigurationPropertyValueException naming {@code idem.nats-kv.servers} when there
     *         are none or one is not a URL (never shown); {@link StoreException} when none answers
     */
    public static Connected connect(IdemProperties.NatsKv settings) {
        List<String> servers = settings.getServers() == null ? List.of()
                : settings.getServers().stream().filter(s -> s != null && !s.isBlank()).map(String::trim).toList();
        if (servers.isEmpty()) {
            throw new InvalidConfigurationPropertyValueException("idem.nats-kv.servers", "", "name at least one server, e.g. nats://10.0.0.1:4222");
        }
        Options options;
        try {
            options = new Options.Builder().servers(servers.toArray(new String[0])).connectionName("idem-nats-kv")
                    .maxReconnects(-1).reconnectWait(Duration.ofMillis(250)).errorListener(new ErrorListener() { }).build();
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationPropertyValueException("idem.nats-kv.servers", NOT_SHOWN, "each must be a nats:// or tls:// URL");
        }
        try {
            return new Connected(Nats.connect(options));
        } catch (IOException e) {
            throw StoreException.failed("NATS KV store", "connect", null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw StoreException.failed("NATS KV store", "connect", null, e);
        }
    }

    /** @throws InvalidConfigurationPropertyValueException naming the bad property */
    public static NatsKvIdempotencyStore build(Connected connected, IdemProperties.NatsKv settings) {
        NatsKvIdempotencyStore.Builder builder = NatsKvIdempotencyStore.builder(connected.connection);
        try {
            builder.bucket(settings.getBucket());
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationPropertyValueException("idem.nats-kv.bucket", settings.getBucket(), e.getMessage());
        }
        try {
            builder.createBucket(settings.getReplicas(), settings.getMaxAge());
        } catch (IllegalArgumentException | NullPointerException e) {
            boolean replicas = settings.getReplicas() < 1 || settings.getReplicas() > 5;
            throw new InvalidConfigurationPropertyValueException(replicas ? "idem.nats-kv.replicas" : "idem.nats-kv.max-age",
                    replicas ? settings.getReplicas() : settings.getMaxAge(), e.getMessage());
        }
        try {
            builder.requestTimeout(settings.getRequestTimeout());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidConfigurationPropertyValueException("idem.nats-kv.request-timeout", settings.getRequestTimeout(), e.getMessage());
        }
        return builder.replicationCheck(switch (settings.getReplicationCheck()) {
            case REFUSE -> ReplicationCheck.REFUSE;
            case WARN -> ReplicationCheck.WARN;
            case SKIP -> ReplicationCheck.SKIP;
        }).build();
    }
}
