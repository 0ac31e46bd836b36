package dev.idem.redis;

import dev.idem.Fingerprint;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.redis.internal.Durability;
import dev.idem.redis.internal.HeaderCodec;
import dev.idem.redis.internal.KeyLayout;
import dev.idem.redis.internal.LuaScript;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An {@link IdempotencyStore} in Redis (5.0 or later; tested on 7.0).
 *
 * <pre>{@code
 * RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
 * RedisIdempotencyStore store = RedisIdempotencyStore.builder(client).build();
 * Idem idem = Idem.builder().store(store).build();
 * // ... on shutdown:
 * store.close();
 * }</pre>
 *
 * <h2>How it keeps the contract</h2>
 * Every operation is one Lua script ({@code EVALSHA}, with {@code EVAL} when the server's script
 * cache has lost it), so it reads and writes a record atomically: among concurrent claims exactly
 * one acquires, and a failure leaves the record as it was. Leases and expiry are judged by the
 * server's {@code TIME} inside the script, so application instances with skewed clocks agree.
 * <ul>
 * <li><b>Fencing.</b> A fresh record's token is the server's clock in microseconds; a takeover adds
 *     one. A release keeps a tombstone holding only the token until the record's retention ends, so
 *     the next acquisition's token grows from it. Every later write runs only if the record is in
 *     progress with exactly the caller's token; otherwise it changes nothing and throws
 *     {@link LeaseLostException}.</li>
 * <li><b>Retention.</b> Each record's key carries a {@code PEXPIREAT}, so Redis deletes it by itself
 *     {@linkplain #EXPIRY_GRACE a grace period} after it stops being live; no sweeper is needed. A
 *     per-shard sorted set indexes records by that time, which is how {@link #purge} finds records
 *     that expired and not yet removed by Redis, and deletes them early.</li>
 * <li><b>Keys.</b> A record's key is the prefix, a hash tag naming one of 256 shards, and a SHA-256
 *     of the scope and key: {@code idem:{3f}r:<43 base64url characters>}. Idempotency keys and scopes
 *     never appear in key names; a record and its shard's index share a hash slot, as Redis Cluster
 *     requires of a script's keys. (The builder takes a standalone or Sentinel connection; a Lettuce
 *     cluster client is not supported yet.)</li>
 * <li><b>Responses</b> are stored in the record's hash: status, headers in order (a length-prefixed
 *     encoding) and the body byte for byte, several MiB included.</li>
 * </ul>
 *
 * <h2>Durability</h2>
 * A deduplication store that forgets keys lets retried requests run again, so {@link Builder#build()}
 * refuses a server without the append-only file ({@code appendonly yes}) fsynced {@code always} or
 * {@code everysec}, or one that may evict keys (see {@link PersistenceCheck}). With
 * {@code appendfsync everysec}, Redis' default, a power failure (not a crash of Redis alone) can lose
 * the records acknowledged in the last second or so; {@code appendfsync always} loses none and makes
 * every write wait for the disk. A failover to an asynchronous replica can also lose the last writes.
 *
 * <p>Thread-safe: all calls share one connection, which Lettuce multiplexes. {@link #close()} closes
 * what the builder opened (the connection it made, and the client it made from a URI), nothing else.
 * Lettuce's command timeout applies to each call; a call that fails or times out throws
 * {@link StoreException}.
 */
public final class RedisIdempotencyStore implements IdempotencyStore, AutoCloseable {
    /**
     * How long after a record stops being live Redis deletes its key by itself. Until then the
     * record reads as absent and a purge deletes it; the grace gives a sweeper, if one runs, the
     * first chance to delete and count it.
     */
    public static final Duration EXPIRY_GRACE = Duration.ofMinutes(1);

    private static final String NAME = "Redis store";
    private static final LuaScript CLAIM = LuaScript.load("claim");
    private static final LuaScript CHECKPOINT = LuaScript.load("checkpoint");
    private static final LuaScript COMPLETE = LuaScript.load("complete");
    private static final LuaScript RELEASE = LuaScript.load("release");
    private static final LuaScript RENEW = LuaScript.load("renew");
    private static final LuaScript FIND = LuaScript.load("find");
    private static final LuaScript PURGE = LuaScript.load("purge");
    private static final List<LuaScript> SCRIPTS = List.of(CLAIM, CHECKPOINT, COMPLETE, RELEASE, RENEW, FIND, PURGE);

    private static final int ACQUIRED = 1;
    private static final int REPLAY = 2;
    private static final int IN_PROGRESS = 3;
    private static final int MISMATCH = 4;

    private final RedisCommands<byte[], byte[]> redis;
    private final AutoCloseable owned;
    private final String keyPrefix;
    private final KeyLayout keys;
    private final byte[] grace = number(EXPIRY_GRACE.toMillis());
    /** The shard the next purge starts at, so successive purges share the work round the shards. */
    private final AtomicInteger purgeCursor = new AtomicInteger();

    private RedisIdempotencyStore(StatefulRedisConnection<byte[], byte[]> connection, AutoCloseable owned, String keyPrefix) {
        this.redis = connection.sync();
        this.owned = owned;
        this.keyPrefix = keyPrefix;
        this.keys = new KeyLayout(keyPrefix);
    }

    /** A store on its own connection from {@code client}; {@link #close()} closes that connection, not the client. */
    public static Builder builder(RedisClient client) {
        Objects.requireNonNull(client, "client is null");
        return new Builder(() -> {
            StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
            return new Opened(c, c::close);
        });
    }

    /** A store on {@code connection}, which the caller keeps and closes; {@link #close()} leaves it open. */
    public static Builder builder(StatefulRedisConnection<byte[], byte[]> connection) {
        Objects.requireNonNull(connection, "connection is null");
        return new Builder(() -> new Opened(connection, () -> { }));
    }

    /** A store with its own client and connection to {@code uri}; {@link #close()} closes both. */
    public static Builder builder(RedisURI uri) {
        Objects.requireNonNull(uri, "uri is null");
        return new Builder(() -> {
            RedisClient client = RedisClient.create(uri);
            try {
                StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
                return new Opened(c, () -> {
                    c.close();
                    client.shutdown(0, 2, TimeUnit.SECONDS);
                });
            } catch (RuntimeException e) {
                client.shutdown(0, 2, TimeUnit.SECONDS);
                throw e;
            }
        });
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    // ---- SPI: one script each ----------------------------------------------------------------

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        RecordKey id = request.id();
        List<Object> answer = run(CLAIM, ScriptOutputType.MULTI, id.scope(), keys.of(id).both(),
                ascii(request.fingerprint().value()), number(request.lease().toMillis()),
                number(request.retention().toMillis()), grace);
        try {
            return claimOutcome(answer);
        } catch (RuntimeException e) {
            throw unreadable("claim", id.scope(), e);
        }
    }

    private static ClaimOutcome claimOutcome(List<Object> answer) {
        switch ((int) integer(answer.get(0))) {
            case ACQUIRED:
                return new ClaimOutcome.Acquired(integer(answer.get(1)), (int) integer(answer.get(2)),
                        answer.size() > 3 ? recoveryPoint(answer.get(3), answer.get(4)) : Optional.empty());
            case REPLAY:
                return new ClaimOutcome.Replay(response(answer.get(1), answer.get(2), answer.get(3)));
            case IN_PROGRESS:
                return new ClaimOutcome.InProgress(Duration.ofMillis(integer(answer.get(1))));
            case MISMATCH:
                return new ClaimOutcome.Mismatch();
            default:
                throw new IllegalStateException("the claim script answered an unknown outcome " + answer.get(0));
        }
    }

    @Override
    public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        Objects.requireNonNull(point, "recovery point is null");
        write(CHECKPOINT, "checkpoint", id, token, keys.of(id).recordOnly(),
                number(token), point.phase().getBytes(StandardCharsets.UTF_8), point.state());
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        Objects.requireNonNull(response, "response is null; complete needs the response to replay");
        Objects.requireNonNull(retention, "retention is null");
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("retention must be positive, was " + retention);
        }
        write(COMPLETE, "complete", id, token, keys.of(id).both(), number(token), number(response.status()),
                HeaderCodec.encode(response.headers()), response.body(), number(retention.toMillis()), grace);
    }

    @Override
    public void release(RecordKey id, long token) {
        write(RELEASE, "release", id, token, keys.of(id).both(), number(token), grace);
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        Objects.requireNonNull(lease, "lease is null");
        if (lease.isNegative()) {
            throw new IllegalArgumentException("lease must not be negative, was " + lease);
        }
        write(RENEW, "renew", id, token, keys.of(id).both(), number(token), number(lease.toMillis()), grace);
    }

    /**
     * Deletes up to {@code limit} expired records that Redis has not removed by itself yet. One script
     * per shard (a shard's records share a hash slot), starting where the previous purge left off,
     * until {@code limit} are deleted or every shard has been visited.
     */
    @Override
    public int purge(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("purge limit must be at least 1, was " + limit);
        }
        int start = Math.floorMod(purgeCursor.getAndIncrement(), KeyLayout.SHARDS);
        int deleted = 0;
        for (int i = 0; i < KeyLayout.SHARDS && deleted < limit; i++) {
            byte[][] index = {keys.index((start + i) % KeyLayout.SHARDS)};
            Long n = run(PURGE, ScriptOutputType.INTEGER, null, index, number(limit - deleted));
            deleted += n.intValue();
        }
        return deleted;
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey id) {
        List<Object> f = run(FIND, ScriptOutputType.MULTI, id.scope(), keys.of(id).recordOnly());
        if (f.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(record(id, f));
        } catch (RuntimeException e) {
            throw unreadable("find", id.scope(), e);
        }
    }

    private static IdempotencyRecord record(RecordKey id, List<Object> f) {
        RecordState state = "1".equals(text(f.get(0))) ? RecordState.COMPLETED : RecordState.IN_PROGRESS;
        Optional<StoredResponse> response = state == RecordState.COMPLETED
                ? Optional.of(response(f.get(8), f.get(9), f.get(10)))
                : Optional.empty();
        return new IdempotencyRecord(id, Fingerprint.parse(text(f.get(3))), state,
                Long.parseLong(text(f.get(1))), Integer.parseInt(text(f.get(2))),
                Instant.ofEpochMilli(Long.parseLong(text(f.get(4)))), Instant.ofEpochMilli(Long.parseLong(text(f.get(5)))),
                recoveryPoint(f.get(6), f.get(7)), response);
    }

    /** A record this store did not write (another program under the same prefix, a damaged value). */
    private static StoreException unreadable(String operation, Scope scope, RuntimeException e) {
        return StoreException.failed(NAME, operation, scope,
                new IllegalStateException("the record in Redis is not one this store can read (" + e.getClass().getSimpleName() + ")", e));
    }

    /** Closes what the builder opened: the connection it made, and the client it made from a URI. */
    @Override
    public void close() {
        try {
            owned.close();
        } catch (Exception e) {
            throw StoreException.failed(NAME, "close", null, e);
        }
    }

    @Override
    public String toString() {
        return "RedisIdempotencyStore[keyPrefix=" + keyPrefix + "]";
    }

    // ---- scripts -------------------------------------------------------------------------------

    /** A token-conditional write: the script answers 0 when the token is not the record's. */
    private void write(LuaScript script, String operation, RecordKey id, long token, byte[][] keys, byte[]... args) {
        Long done = run(script, ScriptOutputType.INTEGER, id.scope(), keys, args);
        if (done == 0) {
            throw LeaseLostException.staleToken(id.scope(), token, operation);
        }
    }

    /**
     * Runs a script by its SHA-1, and by its text if the server's script cache does not hold it (a
     * restart, a {@code SCRIPT FLUSH}, a failover): {@code EVAL} also caches it again.
     */
    private <T> T run(LuaScript script, ScriptOutputType type, Scope scope, byte[][] keys, byte[]... args) {
        try {
            try {
                return redis.evalsha(script.sha1(), type, keys, args);
            } catch (RedisNoScriptException e) {
                return redis.eval(script.text(), type, keys, args);
            }
        } catch (RedisException e) {
            throw StoreException.failed(NAME, script.name(), scope, e);
        }
    }

    // ---- values --------------------------------------------------------------------------------

    private static byte[] number(long n) {
        return ascii(Long.toString(n));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static long integer(Object reply) {
        return (Long) reply;
    }

    private static String text(Object reply) {
        return new String((byte[]) reply, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(Object reply) {
        return reply == null ? new byte[0] : (byte[]) reply;
    }

    private static StoredResponse response(Object status, Object headers, Object body) {
        int code = status instanceof Long l ? l.intValue() : Integer.parseInt(text(status));
        return StoredResponse.of(code, HeaderCodec.decode(bytes(headers)), bytes(body));
    }

    private static Optional<RecoveryPoint> recoveryPoint(Object phase, Object state) {
        return phase == null ? Optional.empty() : Optional.of(RecoveryPoint.of(text(phase), bytes(state)));
    }

    // ---- building ------------------------------------------------------------------------------

    /** A connection and how to close what the builder opened for it. */
    private record Opened(StatefulRedisConnection<byte[], byte[]> connection, AutoCloseable closer) {
    }

    /** Settings of a {@link RedisIdempotencyStore}. */
    public static final class Builder {
        private static final int MAX_PREFIX_LENGTH = 128;

        private final Supplier<Opened> open;
        private String keyPrefix = "idem:";
        private PersistenceCheck persistenceCheck = PersistenceCheck.REQUIRE_AOF;

        private Builder(Supplier<Opened> open) {
            this.open = open;
        }

        /**
         * Default {@code idem:}. Starts every key the store writes, so several stores (or
         * applications) can share a server. 1 to 128 visible ASCII characters other than braces:
         * the store puts its own hash tag after the prefix.
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.isEmpty()) {
                throw new IllegalArgumentException("keyPrefix is missing or empty");
            }
            if (keyPrefix.length() > MAX_PREFIX_LENGTH) {
                throw new IllegalArgumentException("keyPrefix has " + keyPrefix.length() + " characters; at most "
                        + MAX_PREFIX_LENGTH + " are allowed");
            }
            for (int i = 0; i < keyPrefix.length(); i++) {
                char c = keyPrefix.charAt(i);
                if (c < 0x21 || c > 0x7E) {
                    throw new IllegalArgumentException("keyPrefix '" + keyPrefix + "' has a character that is not visible ASCII at position " + i);
                }
                if (c == '{' || c == '}') {
                    throw new IllegalArgumentException("keyPrefix '" + keyPrefix + "' has a brace at position " + i
                            + "; braces would change the hash tag that keeps a record and its index in one slot");
                }
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Default {@link PersistenceCheck#REQUIRE_AOF}: {@link #build()} refuses a server that would
         * forget records on a restart. {@link PersistenceCheck#SKIP} only for a server known to persist
         * whose {@code CONFIG} command is disabled, or a throwaway test server.
         */
        public Builder persistenceCheck(PersistenceCheck persistenceCheck) {
            this.persistenceCheck = Objects.requireNonNull(persistenceCheck, "persistenceCheck is null");
            return this;
        }

        /**
         * Connects, checks persistence unless told to skip it, and loads the scripts into the server's
         * cache (which also checks they compile there).
         *
         * @throws StoreException        if the server cannot be reached
         * @throws IllegalStateException if the server is not durable (see {@link PersistenceCheck#REQUIRE_AOF})
         */
        public RedisIdempotencyStore build() {
            Opened opened;
            try {
                opened = open.get();
            } catch (RedisException e) {
                throw StoreException.failed(NAME, "connect", null, e);
            }
            try {
                RedisCommands<byte[], byte[]> redis = opened.connection().sync();
                if (persistenceCheck == PersistenceCheck.REQUIRE_AOF) {
                    checkPersistence(redis);
                }
                loadScripts(opened.connection());
                return new RedisIdempotencyStore(opened.connection(), opened.closer(), keyPrefix);
            } catch (RuntimeException e) {
                closeQuietly(opened, e);
                if (e instanceof RedisException redisFailure) {
                    throw StoreException.failed(NAME, "connect", null, redisFailure);
                }
                throw e;
            }
        }

        /** Sends every script's SCRIPT LOAD at once and then checks the answers: one round trip, not seven. */
        private static void loadScripts(StatefulRedisConnection<byte[], byte[]> connection) {
            RedisAsyncCommands<byte[], byte[]> async = connection.async();
            List<RedisFuture<String>> loads = new ArrayList<>();
            for (LuaScript script : SCRIPTS) {
                loads.add(async.scriptLoad(script.text()));
            }
            long timeout = connection.getTimeout().toMillis();
            for (int i = 0; i < SCRIPTS.size(); i++) {
                String sha = LettuceFutures.awaitOrCancel(loads.get(i), timeout, TimeUnit.MILLISECONDS);
                LuaScript script = SCRIPTS.get(i);
                if (!script.sha1().equals(sha)) {
                    throw new IllegalStateException("Redis store: the server names script " + script.name()
                            + " " + sha + ", not " + script.sha1());
                }
            }
        }

        private static void checkPersistence(RedisCommands<byte[], byte[]> redis) {
            Map<String, String> config;
            try {
                config = redis.configGet(Durability.SETTINGS);
            } catch (RedisCommandExecutionException e) {
                // CONFIG renamed away or denied by an ACL: a managed server, most likely.
                throw new IllegalStateException(Durability.unverifiable(e.getMessage()), e);
            }
            List<String> problems = Durability.problems(config);
            if (!problems.isEmpty()) {
                throw new IllegalStateException(Durability.refusal(problems));
            }
        }

        private static void closeQuietly(Opened opened, RuntimeException failure) {
            try {
                opened.closer().close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}
