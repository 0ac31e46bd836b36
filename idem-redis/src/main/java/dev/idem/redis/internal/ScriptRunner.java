package dev.idem.redis.internal;

import dev.idem.Scope;
import dev.idem.StoreException;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the Redis store's scripts reach the server: on the master that serves a script's first key,
 * by SHA-1 with the text as fallback, following a cluster's redirections, with the optional
 * {@code WAIT} for replicas sent behind the script. The store decides what a script's answer means;
 * this class owns the connections, the topology hints and the failures as {@link StoreException}s.
 */
public final class ScriptRunner {
    private final Nodes nodes;
    private final String store;
    /** Replicas that must have an acknowledged script's writes; null if none. */
    private final Acknowledgement ack;

    /** @param store how failures name the store, e.g. "Redis store" */
    public ScriptRunner(Nodes nodes, String store, Acknowledgement ack) {
        this.nodes = nodes;
        this.store = store;
        this.ack = ack;
    }

    /** Replicas that must acknowledge writes, and how long they are given; null if none. */
    public Acknowledgement acknowledgement() {
        return ack;
    }

    /** A write that {@code replicas} replicas, fewer than required, acknowledged in time, as a failure saying what that means. */
    public StoreException notReplicated(String operation, Scope scope, long replicas, String consequence) {
        return StoreException.failed(store, operation, scope, new RedisException("not replicated in time: only " + replicas + " of "
                + ack.replicas() + " replica(s) acknowledged the write within " + ack.timeout().toMillis() + " ms (WAIT); " + consequence));
    }

    /**
     * Runs a script on the master that serves its first key, by its SHA-1, and by its text if that
     * node's script cache does not hold it (a restart, a {@code SCRIPT FLUSH}, a promoted replica):
     * {@code EVAL} also caches it there. With {@code acknowledge} and replica acknowledgement on, a
     * {@code WAIT} follows on the same connection without waiting for the script's answer (one round
     * trip for both), so it counts the replicas that have this script's writes. A {@code MOVED}
     * answer (the topology changed; the script did not run) is followed, up to twice.
     */
    public <T> Reply<T> run(LuaScript script, ScriptOutputType type, Scope scope, boolean acknowledge, byte[][] keys, byte[]... args) {
        boolean waits = acknowledge && ack != null;
        try {
            Nodes.Target target = nodes.forKey(keys[0]);
            for (int redirects = 0; ; redirects++) {
                Nodes.Target used = target;
                StatefulRedisConnection<byte[], byte[]> node = waits ? nodes.take(used) : nodes.shared(used);
                boolean reusable = false;
                try {
                    Reply<T> reply = attempt(node, script, type, waits, keys, args);
                    reusable = true;
                    return reply;
                } catch (RedisCommandExecutionException e) {
                    reusable = true; // the server answered: the connection is in order
                    Matcher moved = MOVED.matcher(String.valueOf(e.getMessage()));
                    if (!moved.find() || redirects >= 2) {
                        throw e;
                    }
                    nodes.topologyMayHaveChanged();
                    target = new Nodes.Target(moved.group(1), Integer.parseInt(moved.group(2)));
                } finally {
                    if (waits) {
                        nodes.giveBack(used, node, reusable);
                    }
                }
            }
        } catch (RedisCommandExecutionException e) {
            String message = String.valueOf(e.getMessage()).toUpperCase(Locale.ROOT);
            if (message.startsWith("ASK") || message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN")) {
                nodes.topologyMayHaveChanged();
            }
            throw StoreException.failed(store, script.name(), scope, e);
        } catch (RedisException e) {
            // A node that does not answer: on a cluster, perhaps a failed master whose replica takes over.
            nodes.topologyMayHaveChanged();
            throw StoreException.failed(store, script.name(), scope, e);
        }
    }

    private <T> Reply<T> attempt(StatefulRedisConnection<byte[], byte[]> node, LuaScript script, ScriptOutputType type,
            boolean waits, byte[][] keys, byte[]... args) {
        RedisAsyncCommands<byte[], byte[]> redis = node.async();
        long timeout = node.getTimeout().toMillis();
        RedisFuture<T> result = redis.evalsha(script.sha1(), type, keys, args);
        RedisFuture<Long> replicated = waits ? redis.waitForReplication(ack.replicas(), ack.timeout().toMillis()) : null;
        T value;
        try {
            value = LettuceFutures.awaitOrCancel(result, timeout, TimeUnit.MILLISECONDS);
        } catch (RedisNoScriptException e) {
            // The WAIT already sent answers harmlessly and is ignored; another follows the EVAL.
            RedisFuture<T> again = redis.eval(script.text(), type, keys, args);
            replicated = waits ? redis.waitForReplication(ack.replicas(), ack.timeout().toMillis()) : null;
            value = LettuceFutures.awaitOrCancel(again, timeout, TimeUnit.MILLISECONDS);
        }
        if (replicated == null) {
            return new Reply<>(value, -1, true);
        }
        long replicas = LettuceFutures.awaitOrCancel(replicated, timeout + ack.timeout().toMillis(), TimeUnit.MILLISECONDS);
        return new Reply<>(value, replicas, replicas >= ack.replicas());
    }

    private static final Pattern MOVED = Pattern.compile("^MOVED \\d+ (.+):(\\d+)");

    /** A script's answer; {@code replicas} that acknowledged its writes, or -1 if not asked. */
    public record Reply<T>(T value, long replicas, boolean acknowledged) {
    }

    /** How many replicas must have a write, and how long {@code WAIT} gives them. */
    public record Acknowledgement(int replicas, Duration timeout) {
    }
}
