package dev.idem.redis.internal;

import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/** One server (standalone, or a master that Sentinel names and Lettuce follows): every script on one connection. */
public final class SingleNode implements Nodes {
    private static final int MAX_IDLE = 32;

    private final StatefulRedisConnection<byte[], byte[]> connection;
    /** Opens more connections to the same server for {@link #take}; null when the caller gave one connection only. */
    private final Supplier<StatefulRedisConnection<byte[], byte[]>> more;
    private final AutoCloseable closer;
    private final Queue<StatefulRedisConnection<byte[], byte[]>> idle = new ConcurrentLinkedQueue<>();

    /**
     * @param more opens another connection to the same server, or null: then {@link #take} hands out
     *             the one connection, and calls that wait for replicas queue behind each other
     */
    public SingleNode(StatefulRedisConnection<byte[], byte[]> connection, Supplier<StatefulRedisConnection<byte[], byte[]>> more,
            AutoCloseable closer) {
        this.connection = connection;
        this.more = more;
        this.closer = closer;
    }

    @Override
    public Target forKey(byte[] key) {
        return Target.SINGLE;
    }

    @Override
    public StatefulRedisConnection<byte[], byte[]> shared(Target target) {
        return connection;
    }

    @Override
    public StatefulRedisConnection<byte[], byte[]> take(Target target) {
        if (more == null) {
            return connection;
        }
        StatefulRedisConnection<byte[], byte[]> c = idle.poll();
        return c != null ? c : more.get();
    }

    @Override
    public void giveBack(Target target, StatefulRedisConnection<byte[], byte[]> c, boolean reusable) {
        if (c == connection) {
            return;
        }
        if (reusable && c.isOpen() && idle.size() < MAX_IDLE) {
            idle.offer(c);
        } else {
            c.closeAsync();
        }
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
        for (StatefulRedisConnection<byte[], byte[]> c = idle.poll(); c != null; c = idle.poll()) {
            c.close();
        }
        try {
            closer.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
