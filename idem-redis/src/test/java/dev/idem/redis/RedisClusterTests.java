package dev.idem.redis;

import dev.idem.testing.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.List;

/** The Redis Cluster the cluster tests run against (see {@link RedisCluster#shared()}), and stores on it. */
final class RedisClusterTests {
    private RedisClusterTests() {
    }

    static RedisCluster cluster() {
        return RedisCluster.shared();
    }

    /** The cluster's nodes as URIs with a 5 s command timeout. */
    static List<RedisURI> uris(RedisCluster cluster, Duration timeout) {
        return cluster.nodeUris().stream().map(u -> {
            RedisURI uri = RedisURI.create(u);
            uri.setTimeout(timeout);
            return uri;
        }).toList();
    }

    /**
     * A store under {@code prefix} on the shared cluster, with the defaults: the persistence check (the
     * cluster's nodes run with appendonly yes) and one replica acknowledging each write.
     */
    static RedisIdempotencyStore store(String prefix) {
        return RedisIdempotencyStore.clusterBuilder(uris(cluster(), Duration.ofSeconds(5))).keyPrefix(prefix).build();
    }

    /** {@link #store} keeping the records' keys, as the admin API's lists need. */
    static RedisIdempotencyStore storeKeepingKeys(String prefix) {
        return RedisIdempotencyStore.clusterBuilder(uris(cluster(), Duration.ofSeconds(5))).keyPrefix(prefix).keepKeys(true).build();
    }

    /** Deletes every key under {@code prefix} on every master. */
    static void deleteKeys(String prefix) {
        RedisClusterClient client = RedisClusterClient.create(uris(cluster(), Duration.ofSeconds(5)));
        try (StatefulRedisClusterConnection<String, String> admin = client.connect()) {
            List<String> keys = admin.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                admin.sync().del(keys.toArray(new String[0]));
            }
        } finally {
            client.shutdown();
        }
    }
}
