package dev.idem.quarkus.deployment;

import dev.idem.testing.RealServices;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.List;

/** What the Redis tests look at in the real Redis: the keys under their own prefix, and the connections by name. */
final class RedisKeys {
    private RedisKeys() {
    }

    /**
     * A prefix no other test class, nor another test JVM, writes under. Made of the JVM's id, not a
     * random value: Quarkus loads the test class again, and both copies must name the same prefix.
     */
    static String prefix(String test) {
        return "idem-quarkus-" + test + "-" + ProcessHandle.current().pid() + ":";
    }

    static List<String> keys(String prefix) {
        RedisClient client = RedisClient.create(RealServices.redisUri());
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            List<String> keys = new ArrayList<>();
            ScanArgs args = ScanArgs.Builder.matches(prefix + "*").limit(1000);
            KeyScanCursor<String> cursor = redis.sync().scan(args);
            keys.addAll(cursor.getKeys());
            while (!cursor.isFinished()) {
                cursor = redis.sync().scan(ScanCursor.of(cursor.getCursor()), args);
                keys.addAll(cursor.getKeys());
            }
            return keys;
        } finally {
            client.shutdown();
        }
    }

    /** Deletes every key under {@code prefix}: the tests leave the shared server as they found it. */
    static void delete(String prefix) {
        List<String> keys = keys(prefix);
        if (keys.isEmpty()) {
            return;
        }
        RedisClient client = RedisClient.create(RealServices.redisUri());
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            redis.sync().del(keys.toArray(new String[0]));
        } finally {
            client.shutdown();
        }
    }

    /** How many of the server's client connections are named {@code name} (CLIENT LIST). */
    static long connectionsNamed(String name) {
        RedisClient client = RedisClient.create(RealServices.redisUri());
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            return redis.sync().clientList().lines().filter(line -> line.contains(" name=" + name + " ")).count();
        } finally {
            client.shutdown();
        }
    }
}
