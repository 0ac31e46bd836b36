package dev.idem.redis.internal;

import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;

/**
 * Where the store's scripts run: one server (standalone, or the master a Sentinel names), or the
 * masters of a Redis Cluster, each reached on a connection of its own. A script and the
 * {@code WAIT} after it go on the same connection, since {@code WAIT} counts the replicas that have
 * the writes of the connection it is sent on.
 */
public interface Nodes extends AutoCloseable {

    /** The connection to the master that serves {@code key} (its hash slot, on a cluster). */
    StatefulRedisConnection<byte[], byte[]> forKey(byte[] key);

    /** The connection to the node at {@code host:port}, as a {@code MOVED} redirection names it. */
    StatefulRedisConnection<byte[], byte[]> at(String host, int port);

    /** Something suggests the topology changed (a redirection, a node that does not answer): look again soon. */
    void topologyMayHaveChanged();

    /** Every master, with its address for messages; on a standalone server, the one connection. */
    List<Node> masters();

    /** Every replica a cluster's topology lists as connected, on connections the caller closes; none otherwise. */
    List<Node> openReplicas();

    /** Whether this is a Redis Cluster. */
    boolean cluster();

    @Override
    void close();

    /** A node's connection and where it is, for messages. */
    record Node(String address, StatefulRedisConnection<byte[], byte[]> connection) {
    }
}
