package dev.idem.redis;

import static dev.idem.redis.internal.ScriptValues.ascii;
import static dev.idem.redis.internal.ScriptValues.integer;
import static dev.idem.redis.internal.ScriptValues.number;
import static dev.idem.redis.internal.ScriptValues.record;
import static dev.idem.redis.internal.ScriptValues.recoveryPoint;
import static dev.idem.redis.internal.ScriptValues.response;
import static dev.idem.redis.internal.ScriptValues.utf8;

import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.spi.Arguments;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.redis.internal.ClusterNodes;
import dev.idem.redis.internal.Durability;
import dev.idem.redis.internal.HeaderCodec;
import dev.idem.redis.internal.KeyLayout;
import dev.idem.redis.internal.LuaScript;
import dev.idem.redis.internal.NodeChecks;
import dev.idem.redis.internal.Nodes;
import dev.idem.redis.internal.ScriptRunner;
import dev.idem.redis.internal.ScriptRunner.Acknowledgement;
import dev.idem.redis.internal.ScriptRunner.Reply;
import dev.idem.redis.internal.SingleNode;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import dev.idem.spi.StoreAdministration;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 *     never appear in key names, nor anywhere in Redis unless {@link Builder#keepKeys} says so; a record and its shard's index share a hash slot, as Redis Cluster
 *     requires of a script's keys, so every operation is one script on one slot of one master.</li>
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
 * <h2>Redis Cluster and replica acknowledgement</h2>
 * {@link #clusterBuilder} runs the store on a Redis Cluster: each script goes to the master that
 * serves its slot, on a connection to that master alone, and the topology is read again
 * periodically and whenever a redirection or a silent node suggests a failover. With replica
 * acknowledgement (on by default for a cluster or a Sentinel URI, see
 * {@link Builder#replicaAcknowledgement}) a {@code WAIT} follows each claim, checkpoint, completion
 * and renewal on the same connection, and the write counts only once enough replicas have it:
 * a failover to one of them keeps it. A claim not replicated in time is given back and reported as a
 * {@link StoreException}; it never runs. Giving back follows the engine's rule: a claim without
 * finished phases is released, a takeover carrying a recovery point has its lease ended instead, so
 * the finished phases stay and the next attempt resumes after them. A completion not replicated in time is stored on the master
 * but reported as a {@link StoreException}: the operation ran and its caller should get a retryable
 * error; a retry replays the response, or, if a failover lost the completion, finds the claim (which
 * was replicated) and takes over once its lease ends. {@code WAIT} is not consensus: a failover can
 * still promote a replica that missed a write if the acknowledging replica is not the one promoted
 * (more than one replica per master) or in some network partitions.
 *
 * <p>Thread-safe: calls share one connection per master, which Lettuce multiplexes; a write that
 * waits for replicas takes a pooled connection of its own, since {@code WAIT} blocks the connection it
 * is sent on. {@link #close()} closes what the builder opened (the connections it made, and the
 * client it made from a URI or cluster nodes), nothing else.
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
    private static final List<LuaScript> SCRIPTS = List.of(CLAIM, CHECKPOINT, COMPLETE, RELEASE, RENEW, FIND, PURGE,
            RedisStoreAdministration.INSPECT, RedisStoreAdministration.IN_PROGRESS, RedisStoreAdministration.RELEASE);

    private static final int ACQUIRED = 1;
    private static final int REPLAY = 2;
    private static final int IN_PROGRESS = 3;
    private static final int MISMATCH = 4;

    private final Nodes nodes;
    private final String keyPrefix;
    private final KeyLayout keys;
    /** Runs the scripts; replicas that must have each claim, checkpoint, completion and renewal are its to wait for. */
    private final ScriptRunner scripts;
    private final byte[] grace = number(EXPIRY_GRACE.toMillis());
    /** The shard the next purge starts at, so successive purges share the work round the shards. */
    private final AtomicInteger purgeCursor = new AtomicInteger();
    /** What an operator may ask of the store (see {@link StoreAdministration}). */
    private final RedisStoreAdministration administration;

    /** Whether each record keeps its scope and key for operators ({@link Builder#keepKeys}). */
    private final boolean keepKeys;

    private RedisIdempotencyStore(Nodes nodes, String keyPrefix, Acknowledgement ack, boolean keepKeys) {
        this.nodes = nodes;
        this.keyPrefix = keyPrefix;
        this.keys = new KeyLayout(keyPrefix);
        this.scripts = new ScriptRunner(nodes, NAME, ack);
        this.keepKeys = keepKeys;
        this.administration = new RedisStoreAdministration(scripts, keys, grace, keepKeys);
    }

    /**
     * A store on its own connection from {@code client}; {@link #close()} closes that connection, not
     * the client. Replica acknowledgement is off unless {@link Builder#replicaAcknowledgement} turns it
     * on (the store cannot tell whether the client follows a Sentinel).
     */
    public static Builder builder(RedisClient client) {
        Objects.requireNonNull(client, "client is null");
        return new Builder(false, () -> {
            StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
            return new SingleNode(c, () -> client.connect(ByteArrayCodec.INSTANCE), c::close);
        });
    }

    /**
     * A store on {@code connection}, which the caller keeps and closes; {@link #close()} leaves it open.
     * Replica acknowledgement is off unless {@link Builder#replicaAcknowledgement} turns it on.
     */
    public static Builder builder(StatefulRedisConnection<byte[], byte[]> connection) {
        Objects.requireNonNull(connection, "connection is null");
        return new Builder(false, () -> new SingleNode(connection, null, () -> { }));
    }

    /**
     * A store with its own client and connection to {@code uri}; {@link #close()} closes both. For a
     * {@code redis-sentinel://} URI, replica acknowledgement is on by default (one replica).
     */
    public static Builder builder(RedisURI uri) {
        Objects.requireNonNull(uri, "uri is null");
        return new Builder(!uri.getSentinels().isEmpty(), () -> {
            RedisClient client = RedisClient.create(uri);
            try {
                StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
                return new SingleNode(c, () -> client.connect(ByteArrayCodec.INSTANCE), () -> {
                    c.close();
                    client.shutdown(0, 2, TimeUnit.SECONDS);
                });
            } catch (RuntimeException e) {
                client.shutdown(0, 2, TimeUnit.SECONDS);
                throw e;
            }
        });
    }

    /**
     * A store on a Redis Cluster, reached first at {@code nodes} (one is enough; more survive one being
     * down at startup): {@code redis://} or {@code rediss://} URIs whose credentials, TLS and timeout
     * apply to every node. The store makes its own cluster client, which refreshes the topology
     * periodically ({@link Builder#topologyRefreshPeriod}) and whenever a redirection, a node that
     * does not answer or an uncovered slot suggests a change, so a failover is followed without a
     * restart; {@link #close()} closes it all. Replica acknowledgement is on by default (one replica).
     *
     * @throws IllegalArgumentException if {@code nodes} is empty, or names a Sentinel, a Unix socket or
     *                                  a database other than 0 (a cluster has only database 0)
     */
    public static Builder clusterBuilder(Iterable<RedisURI> nodes) {
        Objects.requireNonNull(nodes, "nodes is null");
        List<RedisURI> seeds = new ArrayList<>();
        for (RedisURI uri : nodes) {
            if (uri == null) {
                throw new IllegalArgumentException("cluster node " + (seeds.size() + 1) + " is null");
            }
            String which = "cluster node " + (seeds.size() + 1) + " (" + uri.getHost() + ":" + uri.getPort() + ")";
            if (!uri.getSentinels().isEmpty()) {
                throw new IllegalArgumentException(which + " is a Sentinel URI; a cluster takes its nodes' redis:// or rediss:// URIs");
            }
            if (uri.getSocket() != null) {
                throw new IllegalArgumentException(which + " is a Unix socket; cluster nodes are reached over TCP");
            }
            if (uri.getHost() == null || uri.getHost().isBlank()) {
                throw new IllegalArgumentException(which + " has no host");
            }
            if (uri.getDatabase() != 0) {
                throw new IllegalArgumentException(which + " names database " + uri.getDatabase() + "; Redis Cluster has only database 0");
            }
            seeds.add(uri);
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no cluster nodes: name at least one node of the cluster");
        }
        Builder builder = new Builder(true, null);
        builder.clusterSeeds = List.copyOf(seeds);
        return builder;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    // ---- SPI: one script each ----------------------------------------------------------------

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        RecordKey id = request.id();
        KeyLayout.Keys where = keys.of(id);
        byte[][] args = keepKeys
                ? new byte[][] {ascii(request.fingerprint().value()), number(request.lease().toMillis()), number(request.retention().toMillis()),
                        grace, utf8(id.scope().value()), utf8(id.key().value())}
                : new byte[][] {ascii(request.fingerprint().value()), number(request.lease().toMillis()), number(request.retention().toMillis()),
                        grace};
        Reply<List<Object>> answer = scripts.run(CLAIM, ScriptOutputType.MULTI, id.scope(), true, where.withIndexes(), args);
        ClaimOutcome outcome;
        try {
            outcome = claimOutcome(answer.value());
        } catch (RuntimeException e) {
            throw unreadable("claim", id.scope(), e);
        }
        if (!answer.acknowledged()) {
            // Not replicated in time: a failover now could forget it, so it must not run. Any answer
            // (a replay, a conflict) may rest on writes a failover would lose, so none is given.
            String done = "nothing ran; retry with the same key";
            if (outcome instanceof ClaimOutcome.Acquired acquired) {
                done = giveBackUnreplicated(id, where, acquired, request.lease());
            }
            throw scripts.notReplicated("claim", id.scope(), answer.replicas(), done);
        }
        return outcome;
    }

    /**
     * Undoes a claim the replicas did not acknowledge, by the engine's rule for giving a key back: a
     * claim without finished phases is released, so the next one starts afresh; a takeover carrying a
     * recovery point only has its lease ended, since a release would delete the finished phases and
     * the next attempt would run them again. Either way nothing ran; what is said happened is answered.
     */
    private String giveBackUnreplicated(RecordKey id, KeyLayout.Keys where, ClaimOutcome.Acquired acquired, Duration lease) {
        boolean resumable = acquired.recoveryPoint().isPresent();
        try {
            if (resumable) {
                scripts.run(RENEW, ScriptOutputType.INTEGER, id.scope(), false, where.withIndexes(), number(acquired.token()), number(0), grace);
                return "the claim's lease was ended, keeping its finished phases, and nothing ran; retry with the same key";
            }
            scripts.run(RELEASE, ScriptOutputType.INTEGER, id.scope(), false, where.withIndexes(), number(acquired.token()), grace);
            return "the claim was released and nothing ran; retry with the same key";
        } catch (RuntimeException e) {
            return (resumable ? "ending" : "releasing") + " the claim failed too, so the key is held until the lease ends ("
                    + lease + "); nothing ran; retry with the same key";
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
        write(CHECKPOINT, "checkpoint", id, token, true, keys.of(id).recordOnly(),
                number(token), point.phase().getBytes(StandardCharsets.UTF_8), point.state());
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        Objects.requireNonNull(response, "response is null; complete needs the response to replay");
        Arguments.positive("retention", retention);
        write(COMPLETE, "complete", id, token, true, keys.of(id).withIndexes(), number(token), number(response.status()),
                HeaderCodec.encode(response.headers()), response.body(), number(retention.toMillis()), grace);
    }

    @Override
    public void release(RecordKey id, long token) {
        // Not acknowledged by replicas: a release a failover forgets leaves the claim in place until its
        // lease ends, which delays a retry but never runs anything twice.
        write(RELEASE, "release", id, token, false, keys.of(id).withIndexes(), number(token), grace);
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        Objects.requireNonNull(lease, "lease is null");
        if (lease.isNegative()) {
            throw new IllegalArgumentException("lease must not be negative, was " + lease);
        }
        write(RENEW, "renew", id, token, true, keys.of(id).withIndexes(), number(token), number(lease.toMillis()), grace);
    }

    /**
     * Deletes up to {@code limit} expired records that Redis has not removed by itself yet. One script
     * per shard (a shard's records share a hash slot), starting where the previous purge left off,
     * until {@code limit} are deleted or every shard has been visited.
     */
    @Override
    public int purge(int limit) {
        Arguments.atLeast("purge limit", limit, 1);
        int start = Math.floorMod(purgeCursor.getAndIncrement(), KeyLayout.SHARDS);
        int deleted = 0;
        for (int i = 0; i < KeyLayout.SHARDS && deleted < limit; i++) {
            int shard = (start + i) % KeyLayout.SHARDS;
            byte[][] index = {keys.index(shard), keys.leases(shard)};
            Long n = scripts.<Long>run(PURGE, ScriptOutputType.INTEGER, null, false, index, number(limit - deleted)).value();
            deleted += n.intValue();
        }
        return deleted;
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey id) {
        List<Object> f = scripts.<List<Object>>run(FIND, ScriptOutputType.MULTI, id.scope(), false, keys.of(id).recordOnly()).value();
        if (f.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(record(id, f));
        } catch (RuntimeException e) {
            throw unreadable("find", id.scope(), e);
        }
    }

    // ---- administration ---------------------------------------------------------------------------

    /** Looks at, lists and releases this store's records (see {@link StoreAdministration}). */
    @Override
    public Optional<StoreAdministration> administration() {
        return Optional.of(administration);
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
            nodes.close();
        } catch (RuntimeException e) {
            throw StoreException.failed(NAME, "close", null, e);
        }
    }

    /** Whether this store runs on a Redis Cluster. */
    public boolean cluster() {
        return nodes.cluster();
    }

    /** How many replicas must have each claim, checkpoint, completion and renewal; 0 if replica acknowledgement is off. */
    public int acknowledgingReplicas() {
        Acknowledgement ack = scripts.acknowledgement();
        return ack == null ? 0 : ack.replicas();
    }

    @Override
    public String toString() {
        Acknowledgement ack = scripts.acknowledgement();
        return "RedisIdempotencyStore[keyPrefix=" + keyPrefix + (nodes.cluster() ? ", cluster" : "")
                + (ack == null ? "" : ", replicas=" + ack.replicas() + " within " + ack.timeout().toMillis() + " ms") + "]";
    }

    // ---- scripts -------------------------------------------------------------------------------

    /**
     * A token-conditional write: the script answers 0 when the token is not the record's. With
     * {@code acknowledge}, a write the replicas did not acknowledge in time is reported as a
     * {@link StoreException}: it is on the master, but a failover now could lose it.
     */
    private void write(LuaScript script, String operation, RecordKey id, long token, boolean acknowledge, byte[][] keys, byte[]... args) {
        Reply<Long> done = scripts.run(script, ScriptOutputType.INTEGER, id.scope(), acknowledge, keys, args);
        if (done.value() == 0) {
            throw LeaseLostException.staleToken(id.scope(), token, operation);
        }
        if (!done.acknowledged()) {
            throw scripts.notReplicated(operation, id.scope(), done.replicas(), switch (operation) {
                case "complete" -> "the response is stored on the master but a failover could still lose it;"
                        + " the operation ran, so answer the caller with a retryable error: a retry replays the response,"
                        + " or, if a failover lost it, takes over once the lease ends";
                case "checkpoint" -> "the phase's result is on the master but a failover could still lose it";
                default -> "the lease is extended on the master but a failover could still lose that";
            });
        }
    }

    // ---- building ------------------------------------------------------------------------------

    /** Settings of a {@link RedisIdempotencyStore}. */
    public static final class Builder {
        private static final int MAX_PREFIX_LENGTH = 128;
        private static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(1);
        private static final Duration MAX_ACK_TIMEOUT = Duration.ofMinutes(1);

        /** Opens a standalone or Sentinel connection; null for a cluster, which opens from {@link #clusterSeeds}. */
        private final Supplier<Nodes> open;
        /** A cluster or Sentinel: replica acknowledgement is on unless turned off. */
        private final boolean replicated;
        private List<RedisURI> clusterSeeds;
        private Duration topologyRefreshPeriod = Duration.ofSeconds(10);
        private String keyPrefix = "idem:";
        private PersistenceCheck persistenceCheck = PersistenceCheck.REQUIRE_AOF;
        /** Null until set: then 1 for a cluster or Sentinel, 0 otherwise. */
        private Integer replicas;
        private Duration ackTimeout = DEFAULT_ACK_TIMEOUT;
        private boolean keepKeys;

        private Builder(boolean replicated, Supplier<Nodes> open) {
            this.replicated = replicated;
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
         * Whether each record keeps its scope and idempotency key in its hash (sent with the claim, so
         * {@code MONITOR} and the slow log show them as they show the fingerprint), so that operators
         * can list the keys stuck past their lease by name ({@link StoreAdministration#expiredLeases},
         * {@link StoreAdministration#oldestInProgress}). Default false: only the keys' digests reach
         * Redis, and those two lists are refused; looking at and releasing a key one names work either way.
         */
        public Builder keepKeys(boolean keepKeys) {
            this.keepKeys = keepKeys;
            return this;
        }

        /**
         * Default {@link PersistenceCheck#REQUIRE_AOF}: {@link #build()} refuses a server that would
         * forget records on a restart (on a cluster, any of its masters and connected replicas).
         * {@link PersistenceCheck#SKIP} only for a server known to persist whose {@code CONFIG} command
         * is disabled, or a throwaway test server.
         */
        public Builder persistenceCheck(PersistenceCheck persistenceCheck) {
            this.persistenceCheck = Objects.requireNonNull(persistenceCheck, "persistenceCheck is null");
            return this;
        }

        /**
         * Makes each claim, checkpoint, completion and renewal count only once {@code replicas}
         * replicas of the master that ran it have it: a {@code WAIT replicas timeout} on the same
         * connection, sent with the script. A claim not replicated within {@code timeout} is released
         * (best effort) and reported as a {@link StoreException} saying so; it never runs. A completion,
         * checkpoint or renewal not replicated in time is reported as a {@link StoreException} too,
         * though the master has it (see the class comment). {@link #build()} refuses a master with
         * fewer connected replicas.
         *
         * <p>Default: one replica within 1 s on a cluster ({@link #clusterBuilder}) or a Sentinel URI;
         * off otherwise. {@code replicas} 0 turns it off.
         *
         * @param replicas 0 to 16
         * @param timeout  how long {@code WAIT} waits: more than 0, at most 1 minute, and less than
         *                 the connection's command timeout
         */
        public Builder replicaAcknowledgement(int replicas, Duration timeout) {
            if (replicas < 0 || replicas > 16) {
                throw new IllegalArgumentException("replicas must be 0 (off) to 16, was " + replicas);
            }
            Objects.requireNonNull(timeout, "timeout is null");
            if (timeout.toMillis() < 1 || timeout.compareTo(MAX_ACK_TIMEOUT) > 0) {
                throw new IllegalArgumentException("replica acknowledgement timeout must be 1 ms to 1 min, was " + timeout);
            }
            this.replicas = replicas;
            this.ackTimeout = timeout;
            return this;
        }

        /**
         * Turns replica acknowledgement off: a write counts once the master has it, and a failover
         * to a replica that had not received it yet forgets it (a claim forgotten runs again).
         */
        public Builder noReplicaAcknowledgement() {
            this.replicas = 0;
            return this;
        }

        /**
         * Default 10 s. How often a cluster store reads the topology even when nothing suggests a
         * change; between reads, redirections and nodes that stop answering trigger a read at once
         * (at most four a second). Only for {@link #clusterBuilder}.
         */
        public Builder topologyRefreshPeriod(Duration period) {
            Objects.requireNonNull(period, "period is null");
            if (clusterSeeds == null) {
                throw new IllegalStateException("topologyRefreshPeriod is for a cluster store (clusterBuilder)");
            }
            if (period.toMillis() < 100 || period.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("topology refresh period must be 100 ms to 1 h, was " + period);
            }
            this.topologyRefreshPeriod = period;
            return this;
        }

        /**
         * Connects, checks persistence unless told to skip it, checks that every master has the
         * replicas that must acknowledge writes, and loads the scripts into every master's cache
         * (which also checks they compile there).
         *
         * @throws StoreException        if the server cannot be reached
         * @throws IllegalStateException if the server is not durable (see {@link PersistenceCheck#REQUIRE_AOF}),
         *                               or a master has fewer connected replicas than must acknowledge writes
         */
        public RedisIdempotencyStore build() {
            int required = replicas != null ? replicas : replicated ? 1 : 0;
            Nodes nodes;
            try {
                nodes = open != null ? open.get() : ClusterNodes.open(clusterSeeds, topologyRefreshPeriod);
            } catch (RedisException e) {
                throw StoreException.failed(NAME, "connect", null, e);
            }
            try {
                List<Nodes.Node> masters = nodes.masters();
                if (masters.isEmpty()) {
                    throw new IllegalStateException("Redis store: the cluster has no master that serves slots");
                }
                for (Nodes.Node master : masters) {
                    if (required > 0 && ackTimeout.compareTo(master.connection().getTimeout()) >= 0) {
                        throw new IllegalStateException("Redis store: the replica acknowledgement timeout (" + ackTimeout.toMillis()
                                + " ms) must be shorter than the connection's command timeout (" + master.connection().getTimeout().toMillis() + " ms)");
                    }
                    if (persistenceCheck == PersistenceCheck.REQUIRE_AOF) {
                        NodeChecks.checkPersistence(master);
                    }
                    if (required > 0) {
                        NodeChecks.checkReplicas(master, required, nodes.cluster());
                    }
                    NodeChecks.loadScripts(master.connection(), SCRIPTS);
                }
                if (persistenceCheck == PersistenceCheck.REQUIRE_AOF) {
                    List<Nodes.Node> replicaNodes = nodes.openReplicas();
                    try {
                        for (Nodes.Node replica : replicaNodes) {
                            NodeChecks.checkPersistence(replica);
                        }
                    } finally {
                        replicaNodes.forEach(r -> r.connection().close());
                    }
                }
                return new RedisIdempotencyStore(nodes, keyPrefix, required > 0 ? new Acknowledgement(required, ackTimeout) : null, keepKeys);
            } catch (RuntimeException e) {
                closeQuietly(nodes, e);
                if (e instanceof RedisException redisFailure) {
                    throw StoreException.failed(NAME, "connect", null, redisFailure);
                }
                throw e;
            }
        }

        private static void closeQuietly(Nodes nodes, RuntimeException failure) {
            try {
                nodes.close();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }
}
