package dev.idem.redis.internal;

import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;

/** One server (standalone, or a master that Sentinel names and Lettuce follows): every script on one connection. */
public final class SingleNode implements Nodes {
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final AutoCloseable closer;

    public SingleNode(StatefulRedisConnection<byte[], byte[]> connection, AutoCloseable closer) {
        this.connection = connection;
        this.closer = closer;
    }

    @Override
    public StatefulRedisConnection<byte[], byte[]> forKey(byte[] key) {
        return connection;
    }

    @Override
    public StatefulRedisConnection<byte[], byte[]> at(String host, int port) {
        return connection;
    }

    @Override
    public void topologyMayHaveChanged() {
    }

    @Override
    public List<Node> masters() {
        return List.of(new Node("the server", connection));
    }

    @Override
    public List<Node> openReplicas() {
        return List.of();
    }

    @Override
    public boolean cluster() {
        return false;
    }

    @Override
    public void close() {
        try {
            closer.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
