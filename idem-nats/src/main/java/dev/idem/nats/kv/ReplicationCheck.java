package dev.idem.nats.kv;

/**
 * What {@link NatsKvIdempotencyStore.Builder#build()} does about a bucket that would not keep its
 * records through the loss of a server: fewer replicas than the cluster can give (at most three),
 * or memory storage (a restart of every replica forgets everything).
 */
public enum ReplicationCheck {
    /** The default: refuse such a bucket with an {@link IllegalStateException} naming the setting and the fix. */
    REFUSE,
    /** Build the store but log a warning naming the setting and the fix. */
    WARN,
    /** No check: for a single test server, or a bucket whose replication is known and managed elsewhere. */
    SKIP
}
