package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.redis.internal.KeyLayout;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the Redis store does beyond the shared contract: its key layout, scripts, expiry and failures. */
class RedisStoreTest {
    private static final Duration LONG = Duration.ofMinutes(10);
    private static final String SECRET_KEY = "key-VALUE-7c1e5a";
    private static final String SECRET_PRINCIPAL = "principal-NAME-93ab";
    private static final String SECRET_BODY = "BODY-TEXT-4d2f11";

    private final String prefix = RedisTests.freshPrefix();
    private RedisIdempotencyStore store;
    private StatefulRedisConnection<String, String> admin;
    private RedisCommands<String, String> redis;

    @BeforeEach
    void open() {
        store = RedisTests.store(prefix);
        admin = RedisTests.admin();
        redis = admin.sync();
    }

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
            admin.close();
            RedisTests.deleteKeys(prefix);
        }
    }

    private static RecordKey id(String key) {
        return new RecordKey(Scope.of(SECRET_PRINCIPAL, "POST /payments"), IdempotencyKey.of(key));
    }

    private static Fingerprint fingerprint(String body) {
        return Fingerprint.builder().part("body", body).build();
    }

    private ClaimOutcome claim(RecordKey id) {
        return store.claim(new ClaimRequest(id, fingerprint(SECRET_BODY), LONG, LONG));
    }

    private ClaimOutcome.Acquired acquire(RecordKey id) {
        return (ClaimOutcome.Acquired) claim(id);
    }

    private static StoredResponse response(String body) {
        return StoredResponse.of(201, Map.of("Content-Type", List.of("text/plain")), body.getBytes(StandardCharsets.UTF_8));
    }

    private String recordKey(RecordKey id) {
        return new String(new KeyLayout(prefix).of(id).record(), StandardCharsets.UTF_8);
    }

    private String indexKey(RecordKey id) {
        return new String(new KeyLayout(prefix).of(id).index(), StandardCharsets.UTF_8);
    }

    // ---- key layout ------------------------------------------------------------------------------

    @Test
    @DisplayName("key names hold neither the idempotency key, nor the scope, nor the body; the record holds no key either")
    void keyValuesNeverAppearInRedis() {
        RecordKey running = id(SECRET_KEY + "-running");
        acquire(running);
        RecordKey checkpointed = id(SECRET_KEY + "-checkpointed");
        store.checkpoint(checkpointed, acquire(checkpointed).token(), RecoveryPoint.of("charged", new byte[] {1}));
        RecordKey done = id(SECRET_KEY);
        store.complete(done, acquire(done).token(), response(SECRET_BODY), LONG);
        RecordKey released = id(SECRET_KEY + "-released");
        store.release(released, acquire(released).token());

        List<String> names = RedisTests.keys(redis, prefix);
        assertThat(names).hasSizeGreaterThanOrEqualTo(5).allSatisfy(name -> {
            assertThat(name).doesNotContain(SECRET_KEY).doesNotContain(SECRET_PRINCIPAL).doesNotContain(SECRET_BODY)
                    .doesNotContain("payments");
            assertThat(name.substring(prefix.length())).matches("\\{[0-9a-f]{2}\\}(r:[A-Za-z0-9_-]{43}|expiry|leases)");
        });
        try (StatefulRedisConnection<byte[], byte[]> raw = RedisTests.client().connect(ByteArrayCodec.INSTANCE)) {
            for (String name : names) {
                if (name.contains("}r:")) {
                    raw.sync().hgetall(name.getBytes(StandardCharsets.UTF_8)).forEach((field, value) ->
                            assertThat(new String(value, StandardCharsets.ISO_8859_1)).doesNotContain(SECRET_KEY).doesNotContain(SECRET_PRINCIPAL));
                }
            }
        }
    }

    @Test
    @DisplayName("exceptions name the scope and the operation, never the idempotency key or the body")
    void exceptionsHoldNoKeyOrBody() {
        RecordKey id = id(SECRET_KEY);
        ClaimOutcome.Acquired owner = acquire(id);
        store.complete(id, owner.token(), response(SECRET_BODY), LONG);
        assertThatThrownBy(() -> store.complete(id, owner.token(), response(SECRET_BODY), LONG))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("complete").hasMessageNotContaining(SECRET_KEY).hasMessageNotContaining(SECRET_BODY);

        StatefulRedisConnection<byte[], byte[]> connection = RedisTests.client().connect(ByteArrayCodec.INSTANCE);
        RedisIdempotencyStore onClosed = RedisIdempotencyStore.builder(connection).keyPrefix(prefix)
                .persistenceCheck(PersistenceCheck.SKIP).build();
        connection.close();
        assertThatThrownBy(() -> onClosed.claim(new ClaimRequest(id, fingerprint(SECRET_BODY), LONG, LONG)))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("Redis store: claim failed for scope '" + id.scope() + "'")
                .hasMessageNotContaining(SECRET_KEY).hasMessageNotContaining(SECRET_BODY);
    }

    @Test
    @DisplayName("a record and its shard's expiry index share a hash slot; records spread over the shards")
    void recordAndIndexShareASlot() {
        Set<Integer> slots = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            RecordKey id = id("spread-" + i);
            KeyLayout.Keys keys = new KeyLayout(prefix).of(id);
            assertThat(SlotHash.getSlot(keys.record())).isEqualTo(SlotHash.getSlot(keys.index()));
            slots.add(SlotHash.getSlot(keys.record()));
        }
        assertThat(slots).hasSizeGreaterThan(100);
    }

    // ---- scripts -------------------------------------------------------------------------------

    @Test
    @DisplayName("after SCRIPT FLUSH every operation still works: a missing script is sent again with EVAL")
    void survivesScriptFlush() {
        RecordKey id = id("flushed");
        redis.scriptFlush();
        ClaimOutcome.Acquired owner = acquire(id);
        redis.scriptFlush();
        store.checkpoint(id, owner.token(), RecoveryPoint.of("one", new byte[] {1}));
        redis.scriptFlush();
        store.renew(id, owner.token(), LONG);
        redis.scriptFlush();
        assertThat(store.find(id)).isPresent();
        redis.scriptFlush();
        store.complete(id, owner.token(), response("done"), LONG);
        redis.scriptFlush();
        assertThat(claim(id)).isEqualTo(new ClaimOutcome.Replay(response("done")));
        RecordKey other = id("flushed-released");
        ClaimOutcome.Acquired second = acquire(other);
        redis.scriptFlush();
        store.release(other, second.token());
        redis.scriptFlush();
        assertThat(store.purge(10)).isZero();
        assertThat(claim(other)).isInstanceOf(ClaimOutcome.Acquired.class);
    }

    // ---- retention -------------------------------------------------------------------------------

    @Test
    @DisplayName("Redis removes a record by itself one grace period after its retention ends")
    void redisExpiresRecordsItself() {
        RecordKey id = id("expiring");
        store.complete(id, acquire(id).token(), response("done"), Duration.ofSeconds(5));
        long ttl = redis.pttl(recordKey(id));
        long grace = RedisIdempotencyStore.EXPIRY_GRACE.toMillis();
        assertThat(ttl).isBetween(grace + 4_000, grace + 5_000);
        assertThat(redis.zscore(indexKey(id), recordKey(id))).isNotNull();
    }

    @Test
    @DisplayName("a release leaves a tombstone with the token only; a claim after Redis deleted it still gets a larger token")
    void tombstoneKeepsTheTokenOnly() {
        RecordKey id = id("tombstone");
        ClaimOutcome.Acquired first = acquire(id);
        store.checkpoint(id, first.token(), RecoveryPoint.of("one", new byte[] {1}));
        store.release(id, first.token());
        assertThat(redis.hgetall(recordKey(id))).containsOnlyKeys("s", "t", "e").containsEntry("s", "2")
                .containsEntry("t", Long.toString(first.token()));

        ClaimOutcome.Acquired second = acquire(id);
        assertThat(second.token()).isGreaterThan(first.token());
        store.release(id, second.token());
        redis.del(recordKey(id)); // as Redis does when the tombstone's time is up
        assertThat(acquire(id).token()).isGreaterThan(second.token());
    }

    @Test
    @DisplayName("purge drops index entries of records Redis already removed, and counts only records it deleted")
    void purgeCleansIndexOfRecordsRedisRemoved() {
        RecordKey id = id("gone");
        store.complete(id, acquire(id).token(), response("done"), Duration.ofMillis(1));
        redis.del(recordKey(id)); // as Redis does after the grace period
        sleep(20);
        assertThat(store.purge(10)).isZero();
        assertThat(redis.zcard(indexKey(id))).isZero();
    }

    @Test
    @DisplayName("claims drop index entries of long-gone records a few at a time, so the index stays bounded without a sweeper")
    void claimsTrimTheIndex() {
        RecordKey id = id("trimmer");
        String index = indexKey(id);
        for (int i = 0; i < 20; i++) {
            redis.zadd(index, 1_000 + i, prefix + "gone-" + i); // records that ended in 1970
        }
        acquire(id);
        assertThat(redis.zrange(index, 0, -1)).hasSize(4 + 1).contains(recordKey(id));
    }

    @Test
    @DisplayName("an 8 MiB binary body replays byte for byte")
    void multiMebibyteBodyReplays() {
        byte[] body = new byte[8 * 1024 * 1024 + 3];
        new Random(11).nextBytes(body);
        StoredResponse big = StoredResponse.of(200, Map.of("Content-Type", List.of("application/octet-stream")), body);
        RecordKey id = id("big");
        store.complete(id, acquire(id).token(), big, LONG);
        assertThat(((ClaimOutcome.Replay) claim(id)).response()).isEqualTo(big);
    }

    // ---- building and failures ----------------------------------------------------------------

    @Test
    @DisplayName("the builder rejects a bad key prefix with the reason")
    void keyPrefixIsValidated() {
        RedisIdempotencyStore.Builder builder = RedisIdempotencyStore.builder(RedisTests.client());
        assertThatThrownBy(() -> builder.keyPrefix(null)).isInstanceOf(IllegalArgumentException.class).hasMessage("keyPrefix is missing or empty");
        assertThatThrownBy(() -> builder.keyPrefix("")).isInstanceOf(IllegalArgumentException.class).hasMessage("keyPrefix is missing or empty");
        assertThatThrownBy(() -> builder.keyPrefix("app{1}:")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("brace at position 3");
        assertThatThrownBy(() -> builder.keyPrefix("my app:")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not visible ASCII at position 2");
        assertThatThrownBy(() -> builder.keyPrefix("x".repeat(129))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("129 characters; at most 128");
        assertThatThrownBy(() -> builder.persistenceCheck(null)).isInstanceOf(NullPointerException.class);
        assertThat(RedisIdempotencyStore.builder(RedisTests.client()).persistenceCheck(PersistenceCheck.SKIP).build())
                .satisfies(s -> {
                    assertThat(s.keyPrefix()).isEqualTo("idem:");
                    s.close();
                });
    }

    @Test
    @DisplayName("a value under the prefix that this store did not write is a StoreException, not a wrong answer")
    void foreignValuesAreStoreExceptions() {
        RecordKey damaged = id("damaged");
        long later = System.currentTimeMillis() + 600_000;
        redis.hset(recordKey(damaged), Map.of("s", "0", "t", "1", "a", "1", "f", "not-a-fingerprint",
                "l", Long.toString(later), "e", Long.toString(later)));
        assertThatThrownBy(() -> store.find(damaged)).isInstanceOf(StoreException.class)
                .hasMessageContaining("find failed").hasMessageContaining("not one this store can read");

        RecordKey wrongType = id("wrong-type");
        redis.set(recordKey(wrongType), "a string, not a hash");
        assertThatThrownBy(() -> claim(wrongType)).isInstanceOf(StoreException.class).hasMessageContaining("claim failed")
                .hasMessageContaining("WRONGTYPE");
    }

    @Test
    @DisplayName("a server that does not answer makes build() throw StoreException")
    void unreachableServerIsAStoreException() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        RedisURI nowhere = RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(2)).build();
        assertThatThrownBy(() -> RedisIdempotencyStore.builder(nowhere).persistenceCheck(PersistenceCheck.SKIP).build())
                .isInstanceOf(StoreException.class).hasMessageStartingWith("Redis store: connect failed");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
