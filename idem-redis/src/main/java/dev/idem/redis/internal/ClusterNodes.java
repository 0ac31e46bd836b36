package dev.idem.redis.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The masters of a Redis Cluster. A {@link RedisClusterClient} keeps the topology (which master
 * serves which hash slot), refreshed periodically and, adaptively, whenever Lettuce or this class
 * sees a sign of change; each master is reached on a plain connection of this class's own.
 *
 * <p>Why not the cluster connection's own routing: a command queued on a node connection that the
 * cluster client closes (its node left the topology in a failover) is sent again through the
 * cluster's router, and a keyless {@code WAIT} would then go to whichever node the router picks,
 * counting that node's replicas for writes it never saw. A plain connection is only ever connected
 * to its node: if the node dies, what is queued on it fails, and the store reports a retryable
 * failure. Commands sent while the connection is down are rejected at once rather than queued.
 */
public final class ClusterNodes implements Nodes {
    /** At most one topology refresh this store asks for per period. */
    private static final long REFRESH_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final int MAX_IDLE = 32;

    private final RedisClusterClient clusterClient;
    private final StatefulRedisClusterConnection<byte[], byte[]> topology;
    private final RedisClient nodeClient;
    private final RedisURI settings;
    private final Map<String, StatefulRedisConnection<byte[], byte[]>> connections = new ConcurrentHashMap<>();
    /** Idle connections for one caller at a time (scripts followed by WAIT), per master. */
    private final Map<String, Queue<StatefulRedisConnection<byte[], byte[]>>> idle = new ConcurrentHashMap<>();
    private final AtomicLong nextRefresh = new AtomicLong(System.nanoTime());

    private ClusterNodes(RedisClusterClient clusterClient, StatefulRedisClusterConnection<byte[], byte[]> topology,
            RedisClient nodeClient, RedisURI settings) {
        this.clusterClient = clusterClient;
        this.topology = topology;
        this.nodeClient = nodeClient;
        this.settings = settings;
    }

    /**
     * A cluster client on {@code seeds} that refreshes its topology every {@code refreshPeriod} and on
     * every adaptive trigger (redirections, persistent reconnects, unknown nodes, uncovered slots),
     * at most once a second. Node connections take their credentials, TLS and timeout from the first seed.
     */
    public static ClusterNodes open(List<RedisURI> seeds, Duration refreshPeriod) {
        RedisClusterClient client = RedisClusterClient.create(seeds);
        RedisClient nodeClient = null;
        try {
            client.setOptions(ClusterClientOptions.builder()
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(refreshPeriod)
                            .enableAllAdaptiveRefreshTriggers()
                            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                            .build())
                    .build());
            StatefulRedisClusterConnection<byte[], byte[]> topology = client.connect(ByteArrayCodec.INSTANCE);
            nodeClient = RedisClient.create(client.getResources());
            nodeClient.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
            return new ClusterNodes(client, topology, nodeClient, seeds.get(0));
        } catch (RuntimeException e) {
            if (nodeClient != null) {
                nodeClient.shutdown(0, 2, TimeUnit.SECONDS);
            }
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    @Override
    public Target forKey(byte[] key) {
        int slot = SlotHash.getSlot(key);
        RedisClusterNode master = clusterClient.getPartitions().getMasterBySlot(slot);
        if (master == null || master.getUri() == null) {
            topologyMayHaveChanged();
            throw new RedisException("no master of the cluster serves hash slot " + slot + " (yet)");
        }
        return new Target(master.getUri().getHost(), master.getUri().getPort());
    }

    @Override
    public StatefulRedisConnection<byte[], byte[]> shared(Target target) {
        return connections.computeIfAbsent(target.address(), address -> connect(target.host(), target.port()));
    }

    @Override
    public StatefulRedisConnection<byte[], byte[]> take(Target target) {
        Queue<StatefulRedisConnection<byte[], byte[]>> pool = idle.computeIfAbsent(target.address(), a -> new ConcurrentLinkedQueue<>());
        StatefulRedisConnection<byte[], byte[]> c = pool.poll();
        return c != null ? c : connect(target.host(), target.port());
    }

    @Override
    public void giveBack(Target target, StatefulRedisConnection<byte[], byte[]> c, boolean reusable) {
        Queue<StatefulRedisConnection<byte[], byte[]>> pool = idle.get(target.address());
        if (reusable && c.isOpen() && pool != null && pool.size() < MAX_IDLE) {
            pool.offer(c);
        } else {
            c.closeAsync();
        }
    }

    private StatefulRedisConnection<byte[], byte[]> connect(String host, int port) {
        try {
            return nodeClient.connect(ByteArrayCodec.INSTANCE, RedisURI.builder(settings).withHost(host).withPort(port).build());
        } catch (RedisException e) {
            topologyMayHaveChanged();
            throw e;
        }
    }

    @Override
    public void topologyMayHaveChanged() {
        long now = System.nanoTime();
        long next = nextRefresh.get();
        if (now - next >= 0 && nextRefresh.compareAndSet(next, now + REFRESH_GAP_NANOS)) {
            clusterClient.refreshPartitionsAsync().whenComplete((done, failure) -> closeFormerMasters());
        }
    }

    /** Closes connections to nodes that no longer serve slots (a master that failed, or became a replica). */
    private void closeFormerMasters() {
        Set<String> masters = new HashSet<>();
        for (RedisClusterNode node : clusterClient.getPartitions()) {
            if (serves(node)) {
                masters.add(node.getUri().getHost() + ":" + node.getUri().getPort());
            }
        }
        connections.entrySet().removeIf(entry -> {
            if (masters.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().closeAsync();
            return true;
        });
        idle.entrySet().removeIf(entry -> {
            if (masters.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().forEach(StatefulRedisConnection::closeAsync);
            return true;
        });
    }

    @Override
    public List<Node> masters() {
        List<Node> masters = new ArrayList<>();
        for (RedisClusterNode node : clusterClient.getPartitions()) {
            if (serves(node)) {
                RedisURI uri = node.getUri();
                masters.add(new Node(uri.getHost() + ":" + uri.getPort(), shared(new Target(uri.getHost(), uri.getPort()))));
            }
        }
        return masters;
    }

    @Override
    public List<Node> openReplicas() {
        List<Node> replicas = new ArrayList<>();
        Partitions partitions = clusterClient.getPartitions();
        try {
            for (RedisClusterNode node : partitions) {
                if ((node.is(NodeFlag.REPLICA) || node.is(NodeFlag.SLAVE)) && healthy(node)) {
                    RedisURI uri = node.getUri();
                    replicas.add(new Node(uri.getHost() + ":" + uri.getPort(), nodeClient.connect(ByteArrayCodec.INSTANCE,
                            RedisURI.builder(settings).withHost(uri.getHost()).withPort(uri.getPort()).build())));
                }
            }
            return replicas;
        } catch (RuntimeException e) {
            replicas.forEach(r -> r.connection().close());
            throw e;
        }
    }

    private static boolean serves(RedisClusterNode node) {
        return (node.is(NodeFlag.UPSTREAM) || node.is(NodeFlag.MASTER)) && !node.hasNoSlots() && healthy(node) && node.getUri() != null;
    }

    private static boolean healthy(RedisClusterNode node) {
        return !node.is(NodeFlag.FAIL) && !node.is(NodeFlag.EVENTUAL_FAIL) && !node.is(NodeFlag.NOADDR)
                && !node.is(NodeFlag.HANDSHAKE) && node.isConnected();
    }

    @Override
    public boolean cluster() {
        return true;
    }

    @Override
    public void close() {
        connections.values().forEach(StatefulRedisConnection::close);
        connections.clear();
        idle.values().forEach(pool -> pool.forEach(StatefulRedisConnection::close));
        idle.clear();
        nodeClient.shutdown(0, 2, TimeUnit.SECONDS);
        topology.close();
        clusterClient.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
