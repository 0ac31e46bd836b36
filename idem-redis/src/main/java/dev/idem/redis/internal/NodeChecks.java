package dev.idem.redis.internal;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the Redis store's builder checks on each node before it hands out a store: the scripts load
 * (and compile) there, the node persists what it acknowledges, and a master has the replicas that
 * must acknowledge writes. Each check fails with an {@link IllegalStateException} saying what to change.
 */
public final class NodeChecks {
    private NodeChecks() {
    }

    /** Sends every script's SCRIPT LOAD at once and then checks the answers: one round trip, not seven. */
    public static void loadScripts(StatefulRedisConnection<byte[], byte[]> connection, List<LuaScript> scripts) {
        RedisAsyncCommands<byte[], byte[]> async = connection.async();
        List<RedisFuture<String>> loads = new ArrayList<>();
        for (LuaScript script : scripts) {
            loads.add(async.scriptLoad(script.text()));
        }
        long timeout = connection.getTimeout().toMillis();
        for (int i = 0; i < scripts.size(); i++) {
            String sha = LettuceFutures.awaitOrCancel(loads.get(i), timeout, TimeUnit.MILLISECONDS);
            LuaScript script = scripts.get(i);
            if (!script.sha1().equals(sha)) {
                throw new IllegalStateException("Redis store: the server names script " + script.name()
                        + " " + sha + ", not " + script.sha1());
            }
        }
    }

    /** The node keeps what it acknowledged across a restart (append-only file, fsync), or an exception saying what to change. */
    public static void checkPersistence(Nodes.Node node) {
        RedisCommands<byte[], byte[]> redis = node.connection().sync();
        Map<String, String> config;
        try {
            config = redis.configGet(Durability.SETTINGS);
        } catch (RedisCommandExecutionException e) {
            // CONFIG renamed away or denied by an ACL: a managed server, most likely.
            throw new IllegalStateException(Durability.unverifiable(e.getMessage()), e);
        }
        List<String> problems = Durability.problems(config);
        if (!problems.isEmpty()) {
            String refusal = Durability.refusal(problems);
            throw new IllegalStateException(node.address().equals("the server") ? refusal
                    : refusal.replace("the server does not", "node " + node.address() + " does not"));
        }
    }

    /** The master must be a master and have at least {@code required} replicas connected now. */
    public static void checkReplicas(Nodes.Node master, int required, boolean cluster) {
        String info = master.connection().sync().info("replication");
        String role = field(info, "role");
        String connected = field(info, "connected_slaves");
        String where = cluster ? "master " + master.address() : "the server";
        if (!"master".equals(role)) {
            throw new IllegalStateException("Redis store: " + where + " is a " + role + ", not a master; replica acknowledgement"
                    + " needs the master (name the master, or a Sentinel URI that follows it)");
        }
        int count = connected == null ? 0 : Integer.parseInt(connected);
        if (count < required) {
            throw new IllegalStateException("Redis store: replica acknowledgement needs " + required + " replica(s) per master, but "
                    + where + " has " + count + " connected (INFO replication: connected_slaves:" + count + "). Add replicas,"
                    + " or ask for fewer with replicaAcknowledgement(n, timeout), or turn it off with noReplicaAcknowledgement()"
                    + " (a failover may then forget acknowledged claims, and their retries run again).");
        }
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }
}
