package dev.idem.redis;

import dev.idem.testing.RealServices;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The real Redis the tests run against (the services the README lists for tests), and a clean keyspace per test by a unique prefix. */
final class RedisTests {
    private static RedisClient client;

    private RedisTests() {
    }

    /** One client for the test run; each store opens its own connection on it. */
    static synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create(RealServices.redisUri());
        }
        return client;
    }

    static String freshPrefix() {
        return "idem-test-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12) + ":";
    }

    /**
     * A store under {@code prefix}. The persistence check is skipped on purpose: the machine's Redis
     * persists nothing (it runs with --appendonly no, and tests must not change a shared server's
     * settings), and what is tested here is the store's contract, not the server's disk.
     */
    static RedisIdempotencyStore store(String prefix) {
        return RedisIdempotencyStore.builder(client()).keyPrefix(prefix).persistenceCheck(PersistenceCheck.SKIP).build();
    }

    /** {@link #store} keeping the records' keys, as the admin API's lists need. */
    static RedisIdempotencyStore storeKeepingKeys(String prefix) {
        return RedisIdempotencyStore.builder(client()).keyPrefix(prefix).persistenceCheck(PersistenceCheck.SKIP).keepKeys(true).build();
    }

    /** An admin connection with string keys and values, for looking at what a store wrote. */
    static StatefulRedisConnection<String, String> admin() {
        return client().connect();
    }

    static List<String> keys(RedisCommands<String, String> redis, String prefix) {
        List<String> keys = new ArrayList<>();
        ScanArgs args = ScanArgs.Builder.matches(prefix + "*").limit(1000);
        KeyScanCursor<String> cursor = redis.scan(args);
        keys.addAll(cursor.getKeys());
        while (!cursor.isFinished()) {
            cursor = redis.scan(ScanCursor.of(cursor.getCursor()), args);
            keys.addAll(cursor.getKeys());
        }
        return keys;
    }

    /** Deletes every key under {@code prefix}, so tests leave the shared server as they found it. */
    static void deleteKeys(String prefix) {
        try (StatefulRedisConnection<String, String> admin = admin()) {
            List<String> keys = keys(admin.sync(), prefix);
            if (!keys.isEmpty()) {
                admin.sync().del(keys.toArray(new String[0]));
            }
        }
    }
}
