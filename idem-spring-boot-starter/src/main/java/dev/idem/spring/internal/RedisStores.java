package dev.idem.spring.internal;

import dev.idem.redis.PersistenceCheck;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spring.IdemProperties;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Builds the Redis store from {@code idem.redis.*}: on a Redis Cluster when
 * {@code idem.redis.cluster-nodes} is set, else at {@code idem.redis.url}. Only loaded when
 * idem-redis is on the class path and {@code idem.store=redis}.
 */
public final class RedisStores {
    private static final String NOT_SHOWN = "(not shown: it may hold a password)";

    private RedisStores() {
    }

    /**
     * @throws InvalidConfigurationPropertyValueException naming the bad property; URLs are never
     *         shown, since they may hold a password
     */
    public static RedisIdempotencyStore build(IdemProperties.Redis settings) {
        List<String> clusterNodes = settings.getClusterNodes() == null ? List.of()
                : settings.getClusterNodes().stream().filter(n -> n != null && !n.isBlank()).toList();
        RedisIdempotencyStore.Builder builder;
        boolean replicated;
        if (!clusterNodes.isEmpty()) {
            List<RedisURI> uris = new ArrayList<>();
            for (String node : clusterNodes) {
                uris.add(uri(node.trim(), "idem.redis.cluster-nodes",
                        "each must be a redis:// or rediss:// URI of a cluster node, e.g. redis://10.0.0.1:6379"));
            }
            try {
                builder = RedisIdempotencyStore.clusterBuilder(uris);
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationPropertyValueException("idem.redis.cluster-nodes", NOT_SHOWN, e.getMessage());
            }
            replicated = true;
        } else {
            RedisURI uri = uri(settings.getUrl(), "idem.redis.url", "must be a redis://, rediss:// or redis-sentinel:// URI");
            builder = RedisIdempotencyStore.builder(uri);
            replicated = !uri.getSentinels().isEmpty();
        }
        try {
            builder.keyPrefix(settings.getKeyPrefix());
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationPropertyValueException("idem.redis.key-prefix", settings.getKeyPrefix(), e.getMessage());
        }
        int replicas = replicas(settings.getAckReplicas(), replicated);
        Duration timeout = settings.getAckTimeout();
        if (replicas > 0) {
            try {
                builder.replicaAcknowledgement(replicas, timeout);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new InvalidConfigurationPropertyValueException("idem.redis.ack-timeout", timeout, e.getMessage());
            }
        } else {
            builder.noReplicaAcknowledgement();
        }
        return builder.keepKeys(settings.isKeepKeys()).persistenceCheck(settings.getPersistenceCheck() == IdemProperties.Redis.PersistenceCheck.SKIP
                ? PersistenceCheck.SKIP : PersistenceCheck.REQUIRE_AOF).build();
    }

    /** {@code value} as a Redis URI; otherwise {@code property} is reported as breaking {@code rule}, without its value (it may hold a password). */
    private static RedisURI uri(String value, String property, String rule) {
        try {
            return RedisURI.create(value);
        } catch (RuntimeException e) {
            throw new InvalidConfigurationPropertyValueException(property, NOT_SHOWN, rule);
        }
    }

    /** 'auto' is 1 on a cluster or Sentinel and 0 on a standalone server; 'off' is 0. */
    static int replicas(String value, boolean replicated) {
        String v = value == null ? "auto" : value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("auto")) {
            return replicated ? 1 : 0;
        }
        if (v.equals("off")) {
            return 0;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 0 && n <= 16) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidConfigurationPropertyValueException("idem.redis.ack-replicas", value,
                "must be 'auto' (1 on a cluster or Sentinel, off on a standalone server), 'off', or a number of replicas from 0 to 16");
    }
}
