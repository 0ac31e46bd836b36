package dev.idem.quarkus.internal;

import dev.idem.quarkus.IdemConfig;
import dev.idem.redis.PersistenceCheck;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spi.IdempotencyStore;
import io.lettuce.core.RedisURI;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.configuration.ConfigurationException;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The Redis store ({@code quarkus.idem.store=redis}): a bean only when the build chose it, added by name
 * so that idem-redis and Lettuce, an optional dependency, are never loaded otherwise. The store has its
 * own Lettuce client, closed when the application stops.
 *
 * <p>Where: {@code quarkus.idem.redis.url} when set, else the application's Redis, quarkus-redis-client's
 * {@code quarkus.redis.hosts} (read as a configuration value, so the two clients share a server, not a
 * connection), with its {@code quarkus.redis.client-type} ({@code standalone} or {@code cluster}) and
 * {@code quarkus.redis.username}/{@code password} for a host that names none.
 */
@Singleton
public class RedisStoreProducer {
    static final String URL = "quarkus.idem.redis.url";
    static final String HOSTS = "quarkus.redis.hosts";
    static final String CLIENT_TYPE = "quarkus.redis.client-type";
    static final String USERNAME = "quarkus.redis.username";
    static final String PASSWORD = "quarkus.redis.password";
    /** URLs may hold a password: an error names the property, never its value. */
    private static final String NOT_SHOWN = " (its value is not shown: it may hold a password)";

    /** Connects, checks the server's persistence (unless told not to) and loads the store's scripts: a server that fails this fails startup. */
    @Produces
    @Singleton
    @DefaultBean
    public IdempotencyStore idempotencyStore(IdemConfig config) {
        try {
            return build(config.redis(), ConfigProvider.getConfig());
        } catch (NoClassDefFoundError e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("io/netty/")) {
                throw e;
            }
            // Lettuce 7 is built on Netty 4.2; Quarkus 3 brings Netty 4.1, which wins on the application's class path.
            throw new ConfigurationException("quarkus.idem.store=redis: Lettuce needs a Netty class the application does not have ("
                    + e.getMessage() + "): Lettuce 7 runs on Netty 4.2, Quarkus on Netty 4.1; depend on io.lettuce:lettuce-core 6.8",
                    e, Set.of("quarkus.idem.store"));
        }
    }

    /** Closes the store's connection and Lettuce client when the application stops (dev mode's restarts included). */
    void close(@Disposes IdempotencyStore store) {
        if (store instanceof RedisIdempotencyStore redis) {
            redis.close();
        }
    }

    static RedisIdempotencyStore build(IdemConfig.Redis settings, Config config) {
        RedisIdempotencyStore.Builder builder = builder(settings, config);
        try {
            builder.keyPrefix(settings.keyPrefix());
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("quarkus.idem.redis.key-prefix: " + e.getMessage(), Set.of("quarkus.idem.redis.key-prefix"));
        }
        Optional<Integer> replicas = settings.ackReplicas();
        if (replicas.isPresent() && replicas.get() == 0) {
            builder.noReplicaAcknowledgement();
        } else if (replicas.isPresent()) {
            try {
                builder.replicaAcknowledgement(replicas.get(), settings.ackTimeout());
            } catch (IllegalArgumentException e) {
                throw new ConfigurationException("quarkus.idem.redis.ack-replicas / ack-timeout: " + e.getMessage(),
                        Set.of("quarkus.idem.redis.ack-replicas", "quarkus.idem.redis.ack-timeout"));
            }
        }
        return builder.keepKeys(settings.keepKeys())
                .persistenceCheck(settings.persistenceCheck() == IdemConfig.Redis.PersistenceCheck.SKIP ? PersistenceCheck.SKIP : PersistenceCheck.REQUIRE_AOF)
                .build();
    }

    private static RedisIdempotencyStore.Builder builder(IdemConfig.Redis settings, Config config) {
        Optional<String> url = settings.url().filter(value -> !value.isBlank());
        if (url.isPresent()) {
            return RedisIdempotencyStore.builder(uri(url.get().trim(), URL));
        }
        List<String> hosts = config.getOptionalValues(HOSTS, String.class).orElse(List.of()).stream()
                .filter(host -> !host.isBlank()).toList();
        if (hosts.isEmpty()) {
            throw new ConfigurationException("quarkus.idem.store=redis needs a Redis server: set " + URL
                    + " (e.g. redis://127.0.0.1:6379), or " + HOSTS + ", the application's Redis (quarkus-redis-client)", Set.of(URL, HOSTS));
        }
        List<RedisURI> uris = new ArrayList<>();
        for (String host : hosts) {
            uris.add(withCredentials(host.trim(), uri(host.trim(), HOSTS), config));
        }
        String type = config.getOptionalValue(CLIENT_TYPE, String.class).orElse("standalone").trim().toLowerCase(Locale.ROOT);
        switch (type) {
            case "standalone":
                if (uris.size() > 1) {
                    throw new ConfigurationException(HOSTS + " names " + uris.size() + " hosts for a standalone client; set " + URL
                            + " to the server idem should use", Set.of(HOSTS, URL));
                }
                return RedisIdempotencyStore.builder(uris.get(0));
            case "cluster":
                try {
                    return RedisIdempotencyStore.clusterBuilder(uris);
                } catch (IllegalArgumentException e) {
                    throw new ConfigurationException(HOSTS + ": " + e.getMessage(), Set.of(HOSTS));
                }
            default:
                throw new ConfigurationException(CLIENT_TYPE + "=" + type + " is not read by idem: set " + URL
                        + " (a redis-sentinel:// URI for a Sentinel)", Set.of(CLIENT_TYPE, URL));
        }
    }

    /** {@code value} as a Redis URI; otherwise {@code property} is reported, without its value. */
    private static RedisURI uri(String value, String property) {
        try {
            return RedisURI.create(value);
        } catch (RuntimeException e) {
            throw new ConfigurationException(property + " must be a redis://, rediss:// or redis-sentinel:// URI" + NOT_SHOWN, Set.of(property));
        }
    }

    /** quarkus-redis-client's default credentials, for a host whose URI names none (its user-info part). */
    private static RedisURI withCredentials(String host, RedisURI uri, Config config) {
        Optional<String> password = config.getOptionalValue(PASSWORD, String.class);
        if (password.isEmpty() || userInfo(host)) {
            return uri;
        }
        Optional<String> username = config.getOptionalValue(USERNAME, String.class);
        if (username.isPresent()) {
            uri.setAuthentication(username.get(), password.get());
        } else {
            uri.setAuthentication(password.get());
        }
        return uri;
    }

    private static boolean userInfo(String host) {
        try {
            return java.net.URI.create(host).getRawUserInfo() != null;
        } catch (IllegalArgumentException e) {
            return false; // Lettuce read it: its own spelling, which names no user-info the JDK could find
        }
    }
}
