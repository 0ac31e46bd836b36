package dev.idem.redis;

/**
 * What {@link RedisIdempotencyStore.Builder#build()} checks about the server before it hands out a
 * store. A deduplication store must be durable: a Redis that forgets its keys on restart lets every
 * retried request run a second time.
 */
public enum PersistenceCheck {
    /**
     * The default. Reads the server's settings with {@code CONFIG GET} and refuses a server that is
     * not durable: the append-only file must be on ({@code appendonly yes}) and fsynced
     * {@code always} or {@code everysec}, and a server with a {@code maxmemory} limit must not evict
     * keys ({@code maxmemory-policy noeviction}). A server that refuses {@code CONFIG GET} is refused
     * too, since nothing could be checked.
     */
    REQUIRE_AOF,

    /**
     * No check. For a server known to persist whose {@code CONFIG} command is disabled (most managed
     * Redis services), or for tests on a throwaway server that persists nothing on purpose.
     */
    SKIP
}
