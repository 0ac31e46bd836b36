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

    /** The master that serves {@code key} (its hash slot, on a cluster). */
    Target forKey(byte[] key);

    /** The shared connection to {@code target}, which concurrent calls multiplex. */
    StatefulRedisConnection<byte[], byte[]> shared(Target target);

    /**
     * A connection to {@code target} for one caller at a time, for a script followed by
     * {@code WAIT}: {@code WAIT} blocks the connection it is sent on until the replicas answer, so
     * on a shared connection every other call would queue behind it. Give it back with
     * {@link #giveBack}.
     */
    StatefulRedisConnection<byte[], byte[]> take(Target target);

    /** Returns a connection from {@link #take}: kept for the next caller if {@code reusable}, else closed. */
    void giveBack(Target target, StatefulRedisConnection<byte[], byte[]> connection, boolean reusable);

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

    /** A master: its host and port on a cluster; {@link #SINGLE} for the one server otherwise. */
    record Target(String host, int port) {
        public static final Target SINGLE = new Target("", 0);

        public String address() {
            return host + ":" + port;
        }
    }

    /** A node's connection and where it is, for messages. */
    record Node(String address, StatefulRedisConnection<byte[], byte[]> connection) {
    }
}
