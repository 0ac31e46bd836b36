package dev.idem.nats.kv;

import dev.idem.Fingerprint;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.spi.Arguments;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.RecoveryPoint;
import dev.idem.spi.StoreAdministration;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * An {@link IdempotencyStore} in a NATS JetStream key-value bucket (server 2.9 or later). On a
 * bucket with three replicas every acknowledged write is on a majority of the stream's Raft group,
 * so it survives the loss of any one server, the leader included.
 *
 * <pre>{@code
 * Connection nats = Nats.connect("nats://n1:4222,nats://n2:4222,nats://n3:4222");
 * NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(nats)
 *         .bucket("idem").createBucket(3, Duration.ofDays(2)).build();
 * Idem idem = Idem.builder().store(store).build();
 * }</pre>
 *
 * <h2>How it keeps the contract</h2>
 * JetStream runs no code on the server, so every decision is a read followed by a conditional write
 * that only lands on the revision that was read: a claim of an absent key is a create-if-absent
 * ({@code KeyValue.create}), and every other write (takeover, checkpoint, renewal, completion,
 * release) is an update or delete at the expected revision. Of any number of concurrent writers on
 * one revision exactly one lands; the others read again and decide again.
 * <ul>
 * <li><b>Fencing.</b> A record's token is the revision of the write that acquired it (a fresh claim
 *     or a takeover). Revisions are the bucket stream's sequence numbers, which only grow, so a
 *     later acquisition's token is larger than every earlier token of the record, even one whose
 *     entry was released or purged: no tombstone is needed. Every owner write lands only if the
 *     record is in progress with exactly the caller's token.</li>
 * <li><b>The clock.</b> Leases and retention are judged by one clock: the stream leader's, which
 *     stamps every entry when it stores it. A write that sets a lease or a retention "from now"
 *     stores it relative to its own entry's timestamp; a reader compares the end with a lower bound
 *     of the leader's clock now, taken from an entry the store writes under a key of its own (short
 *     by at most one round trip, read again every second). So application instances with skewed
 *     clocks agree, and a lease is never judged over early on account of a reader. The bound is the
 *     servers' own skew: after a change of leader, entries are stamped by the new leader's clock, and
 *     a lease written by the old one may end earlier or later by the difference between the two
 *     servers' clocks (keep them synchronised, as NATS itself requires for message ages).</li>
 * <li><b>Retention.</b> A record carries its own end, checked on every read: past it, it reads as
 *     absent, and {@link #purge} deletes it. The bucket's maximum age ({@code --ttl}) deletes entries
 *     by itself that long after their last write, so it must be at least the longest retention and
 *     lease the engine asks for: the store refuses a claim, renewal or completion that asks for more
 *     (one bucket serves every retention up to its age; a scope that needs a longer one gets a bucket
 *     and a store of its own).</li>
 * <li><b>Keys.</b> An entry's key is {@code r.} and the base64url SHA-256 of the scope and the
 *     idempotency key, each length-prefixed, so any scope and key map to a valid key name and no two
 *     pairs share one. The entry keeps both originals and a read checks them.</li>
 * <li><b>Size.</b> An entry must fit the bucket's maximum value size and the server's
 *     {@code max_payload} (1 MiB by default): a checkpoint or completion that would not is refused
 *     with a {@link StoreException} naming both sizes, before anything is written.</li>
 * </ul>
 *
 * <h2>Durability and failures</h2>
 * {@link Builder#build()} refuses (or warns about, see {@link ReplicationCheck}) a bucket with fewer
 * replicas than the cluster can give (three at most) or a memory-backed one. A write is acknowledged
 * once a majority of the replicas has it; JetStream writes it to its files at once but syncs them
 * to disk periodically (the server's {@code sync_interval}), so a crash of processes loses nothing
 * acknowledged, while a power failure of a majority at once could. With no majority (two of three
 * servers down) no write is acknowledged: every operation fails with a {@link StoreException} after
 * the request timeout, and nothing runs. A write whose acknowledgement was lost may still have
 * landed: a claim then holds its key until the lease ends (nothing ran), a completion either
 * replays on the retry or, if it did not land, is taken over once the lease ends.
 *
 * <p>Thread-safe. The connection is the caller's: {@link #close()} only deletes the store's clock
 * entry. Timeouts and unreachable servers throw {@link StoreException}.
 */
public final class NatsKvIdempotencyStore implements IdempotencyStore, AutoCloseable {
    private static final String NAME = "NATS KV store";
    private static final String RECORD_PREFIX = "r.";
    /** JetStream's error code for a write whose expected last revision is not the key's. */
    private static final int WRONG_LAST_SEQUENCE = 10071;
    /** JetStream's error code for a stream (here a bucket) that does not exist. */
    private static final int STREAM_NOT_FOUND = 10059;
    /** Room for the subject and headers within {@code max_payload}. */
    private static final int ENVELOPE = 1024;
    private static final Base64.Encoder KEY_ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final System.Logger LOG = System.getLogger(NatsKvIdempotencyStore.class.getName());

    private final KeyValue kv;
    private final String bucket;
    private final ServerClock clock;
    private final String clockKey;
    private final long maxValueBytes;
    /** The bucket's maximum age; zero when entries never age out. */
    private final Duration maxAge;
    /** What an operator may ask of the store (see {@link StoreAdministration}). */
    private final StoreAdministration administration = new Administration();

    private NatsKvIdempotencyStore(KeyValue kv, String bucket, long maxValueBytes, Duration maxAge) {
        this.kv = kv;
        this.bucket = bucket;
        this.clockKey = "clock." + UUID.randomUUID().toString().replace("-", "");
        this.clock = new ServerClock(kv, clockKey);
        this.maxValueBytes = maxValueBytes;
        this.maxAge = maxAge;
    }

    /** A store on {@code connection}, which the caller keeps and closes. */
    public static Builder builder(Connection connection) {
        return new Builder(Objects.requireNonNull(connection, "connection is null"));
    }

    /** The bucket's name. */
    public String bucket() {
        return bucket;
    }

    // ---- SPI -----------------------------------------------------------------------------------

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        RecordKey id = request.id();
        requireWithinAge("claim", "retention", request.retention());
        String name = keyName(id);
        long lease = request.lease().toMillis();
        long retention = request.retention().toMillis();
        return call("claim", id.scope(), () -> {
            while (true) {
                KeyValueEntry entry = kv.get(name);
                StoredRecord record = entry == null ? null : read(entry, id);
                long written = entry == null ? 0 : millis(entry);
                long now = entry == null ? 0 : clock.nowMillis();
                StoredRecord fresh = new StoredRecord(id.scope().value(), id.key().value(), request.fingerprint().value(),
                        StoredRecord.SELF, 1, true, lease, true, retention, null, null, StoredRecord.SELF);
                if (record == null || !record.liveAt(now, written)) {
                    Long revision = conditionally(() -> entry == null ? kv.create(name, fresh.encode())
                            : kv.update(name, fresh.encode(), entry.getRevision()));
                    if (revision != null) {
                        return new ClaimOutcome.Acquired(revision, 1, Optional.empty());
                    }
                    continue;
                }
                if (!record.fingerprint().equals(request.fingerprint().value())) {
                    return new ClaimOutcome.Mismatch();
                }
                if (record.completed()) {
                    return new ClaimOutcome.Replay(record.response());
                }
                long leaseUntil = record.leaseUntil(written);
                if (leaseUntil > now) {
                    return new ClaimOutcome.InProgress(Duration.ofMillis(leaseUntil - now));
                }
                // Takeover: the owner's lease is over. Same recovery point, a larger token, one more attempt.
                long expires = record.expiresAt(written);
                boolean keepEnd = expires > now + retention;
                StoredRecord taken = new StoredRecord(record.scope(), record.key(), record.fingerprint(), StoredRecord.SELF,
                        record.attempt() + 1, true, lease, !keepEnd, keepEnd ? expires : retention, record.point(), null, record.createdAt(written));
                Long revision = conditionally(() -> kv.update(name, taken.encode(), entry.getRevision()));
                if (revision != null) {
                    return new ClaimOutcome.Acquired(revision, taken.attempt(), Optional.ofNullable(record.point()));
                }
            }
        });
    }

    @Override
    public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        Objects.requireNonNull(point, "recovery point is null");
        ownerWrite("checkpoint", id, token, (record, written) -> new StoredRecord(record.scope(), record.key(), record.fingerprint(),
                token, record.attempt(), false, record.leaseUntil(written), false, record.expiresAt(written), point, null,
                record.createdAt(written)));
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        Objects.requireNonNull(response, "response is null; complete needs the response to replay");
        Arguments.positive("retention", retention);
        requireWithinAge("complete", "retention", retention);
        ownerWrite("complete", id, token, (record, written) -> new StoredRecord(record.scope(), record.key(), record.fingerprint(),
                token, record.attempt(), true, 0, true, retention.toMillis(), record.point(), response, record.createdAt(written)));
    }

    @Override
    public void release(RecordKey id, long token) {
        ownerWrite("release", id, token, (record, written) -> null);
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        Objects.requireNonNull(lease, "lease is null");
        if (lease.isNegative()) {
            throw new IllegalArgumentException("lease must not be negative, was " + lease);
        }
        requireWithinAge("renew", "lease", lease);
        // A zero lease ends at once on every reader's clock, not at this write's timestamp, which a
        // reader's lower bound of the leader's clock may not have reached yet.
        boolean ended = lease.isZero();
        ownerWrite("renew", id, token, (record, written) -> new StoredRecord(record.scope(), record.key(), record.fingerprint(),
                token, record.attempt(), !ended, lease.toMillis(), false, record.expiresAt(written), record.point(), null,
                record.createdAt(written)));
    }

    /**
     * Deletes up to {@code limit} records past their end that the bucket's maximum age has not
     * removed yet. It lists the bucket's record keys (one pass over the stream's last entries), so
     * it suits a sweeper that runs now and then; the maximum age removes what it does not.
     */
    @Override
    public int purge(int limit) {
        Arguments.atLeast("purge limit", limit, 1);
        return call("purge", null, () -> {
            int deleted = 0;
            for (String name : recordNames()) {
                if (deleted == limit) {
                    break;
                }
                KeyValueEntry entry = kv.get(name);
                if (entry == null) {
                    continue;
                }
                StoredRecord record = StoredRecord.decode(entry.getValue());
                if (!record.liveAt(clock.nowMillis(), millis(entry))
                        && conditionally(() -> {
                            kv.delete(name, entry.getRevision());
                            return 0L;
                        }) != null) {
                    deleted++;
                }
            }
            return deleted;
        });
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey id) {
        return readLive("find", id, (entry, record, now) -> {
            long written = millis(entry);
            return new IdempotencyRecord(id, Fingerprint.parse(record.fingerprint()),
                    record.completed() ? RecordState.COMPLETED : RecordState.IN_PROGRESS, record.tokenAt(entry.getRevision()),
                    record.attempt(), Instant.ofEpochMilli(record.leaseUntil(written)), Instant.ofEpochMilli(record.expiresAt(written)),
                    Optional.ofNullable(record.point()), Optional.ofNullable(record.response()));
        });
    }

    /** What {@code view} makes of the record under {@code id}, read now; empty if it is absent or not live. */
    private <T> Optional<T> readLive(String operation, RecordKey id, LiveView<T> view) {
        String name = keyName(id);
        return call(operation, id.scope(), () -> {
            KeyValueEntry entry = kv.get(name);
            if (entry == null) {
                return Optional.empty();
            }
            StoredRecord record = read(entry, id);
            long now = clock.nowMillis();
            return record.liveAt(now, millis(entry)) ? Optional.of(view.of(entry, record, now)) : Optional.empty();
        });
    }

    /** A live record's entry, its decoded content and the clock's reading, turned into what a read answers. */
    private interface LiveView<T> {
        T of(KeyValueEntry entry, StoredRecord record, long now);
    }

    // ---- administration ---------------------------------------------------------------------------

    /** Looks at, lists and releases this store's records (see {@link StoreAdministration}). */
    @Override
    public Optional<StoreAdministration> administration() {
        return Optional.of(administration);
    }

    /** The administration of this store's bucket, on the store's reads, conditional writes and clock. */
    private final class Administration implements StoreAdministration {

        @Override
        public Optional<RecordSummary> inspect(RecordKey id) {
            return readLive("inspect", id, (entry, record, now) -> summary(id, record, entry, now));
        }

        /**
         * The records in progress whose lease is over, the longest-expired first. JetStream has no index
         * by lease: it reads every record of the bucket (one pass, as {@link NatsKvIdempotencyStore#purge} does), so it suits an
         * operator's occasional look, not a meter polled every few seconds on a large bucket.
         */
        @Override
        public List<RecordSummary> expiredLeases(int limit) {
            Arguments.between("limit", limit, 1, MAX_LIST);
            return call("list expired leases", null, () -> inProgress().stream()
                    .filter(RecordSummary::leaseExpired)
                    .sorted(Comparator.comparing(RecordSummary::leaseUntil))
                    .limit(limit)
                    .toList());
        }

        /** The record in progress claimed first; like {@link #expiredLeases}, it reads every record of the bucket. */
        @Override
        public Optional<RecordSummary> oldestInProgress() {
            return call("find the oldest in progress", null, () -> inProgress().stream()
                    .min(Comparator.comparing((RecordSummary s) -> s.createdAt().orElse(Instant.MAX))));
        }

        /**
         * Deletes the record at the revision read, if it is in progress under {@code token} and (unless
         * forced) its lease is over. The holder's writes then find no record and fail; the next claim's
         * token is a later revision of the bucket, so larger.
         */
        @Override
        public ReleaseResult releaseStuck(RecordKey id, long token, boolean force) {
            String name = keyName(id);
            return call("release a stuck record", id.scope(), () -> {
                while (true) {
                    KeyValueEntry entry = kv.get(name);
                    StoredRecord record = entry == null ? null : read(entry, id);
                    long written = entry == null ? 0 : millis(entry);
                    if (record == null || record.completed() || !record.liveAt(clock.nowMillis(), written)) {
                        return ReleaseResult.NOT_IN_PROGRESS;
                    }
                    if (record.tokenAt(entry.getRevision()) != token) {
                        return ReleaseResult.TOKEN_CHANGED;
                    }
                    if (!force && record.leaseUntil(written) > clock.nowMillis()) {
                        return ReleaseResult.LEASE_LIVE;
                    }
                    Long landed = conditionally(() -> {
                        kv.delete(name, entry.getRevision());
                        return 0L;
                    });
                    if (landed != null) {
                        return ReleaseResult.RELEASED;
                    }
                    // The owner wrote meanwhile (a renewal, a checkpoint): decide again on what it wrote.
                }
            });
        }
    }

    /** Every live record in progress of the bucket, in no order. */
    private List<RecordSummary> inProgress() throws IOException, JetStreamApiException {
        List<RecordSummary> out = new ArrayList<>();
        for (String name : recordNames()) {
            KeyValueEntry entry = kv.get(name);
            if (entry == null) {
                continue;
            }
            StoredRecord record = StoredRecord.decode(entry.getValue());
            long now = clock.nowMillis();
            if (!record.completed() && record.liveAt(now, millis(entry))) {
                RecordKey id = new RecordKey(Scope.parse(record.scope()), dev.idem.IdempotencyKey.of(record.key()));
                out.add(summary(id, record, entry, now));
            }
        }
        return out;
    }

    /** The keys of every record entry of the bucket (not the clocks'): what a purge or a list walks. */
    private List<String> recordNames() throws IOException, JetStreamApiException {
        try {
            return kv.keys(RECORD_PREFIX + ">");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while listing the bucket's keys", e);
        }
    }

    private static RecordSummary summary(RecordKey id, StoredRecord record, KeyValueEntry entry, long now) {
        long written = millis(entry);
        long created = record.createdAt(written);
        StoredResponse response = record.response();
        return RecordSummary.of(id, record.completed() ? RecordState.COMPLETED : RecordState.IN_PROGRESS, record.tokenAt(entry.getRevision()),
                record.attempt(), Instant.ofEpochMilli(record.leaseUntil(written)), created < 0 ? null : Instant.ofEpochMilli(created),
                Instant.ofEpochMilli(record.expiresAt(written)), Optional.ofNullable(record.point()),
                response == null ? OptionalInt.empty() : OptionalInt.of(response.status()),
                response == null ? OptionalLong.empty() : OptionalLong.of(response.bodyLength()), Instant.ofEpochMilli(now));
    }

    /** Deletes the store's clock entry (best effort); the connection stays open. */
    @Override
    public void close() {
        try {
            kv.delete(clockKey);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            // The bucket's maximum age removes it.
        }
    }

    @Override
    public String toString() {
        return "NatsKvIdempotencyStore[bucket=" + bucket + ", maxValueBytes=" + maxValueBytes + ", maxAge=" + maxAge + "]";
    }

    // ---- writes --------------------------------------------------------------------------------

    /**
     * A write by the owner holding {@code token}: lands only on the revision it read, and only if that
     * revision is the record in progress under this token; {@code change} answers the new record, or
     * null to delete it. A concurrent write on the same record (the owner's own renewal, a takeover)
     * makes it read again and decide again.
     */
    private void ownerWrite(String operation, RecordKey id, long token, BiFunction<StoredRecord, Long, StoredRecord> change) {
        String name = keyName(id);
        call(operation, id.scope(), () -> {
            while (true) {
                KeyValueEntry entry = kv.get(name);
                StoredRecord record = entry == null ? null : read(entry, id);
                if (record == null || record.completed() || record.tokenAt(entry.getRevision()) != token) {
                    throw LeaseLostException.staleToken(id.scope(), token, operation);
                }
                StoredRecord next = change.apply(record, millis(entry));
                byte[] value = next == null ? null : requireFits(operation, next.encode());
                Long landed = conditionally(() -> {
                    if (value == null) {
                        kv.delete(name, entry.getRevision());
                        return 0L;
                    }
                    return kv.update(name, value, entry.getRevision());
                });
                if (landed != null) {
                    return null;
                }
            }
        });
    }

    private byte[] requireFits(String operation, byte[] value) throws IOException {
        if (value.length > maxValueBytes) {
            throw new ValueTooLarge("the " + operation + " needs an entry of " + value.length + " bytes and the bucket '" + bucket
                    + "' takes at most " + maxValueBytes + " (the smaller of its max value size and the server's max_payload,"
                    + " less " + ENVELOPE + " for headers); nothing was written, and a retry fails the same way:"
                    + " raise max_payload (up to 64 MB) and the bucket's max value size, or keep responses smaller");
        }
        return value;
    }

    private void requireWithinAge(String operation, String what, Duration asked) {
        if (!maxAge.isZero() && asked.compareTo(maxAge) > 0) {
            throw StoreException.failed(NAME, operation, null, new IllegalArgumentException("the " + what + " asked for (" + asked
                    + ") is longer than the bucket '" + bucket + "' keeps entries (max age " + maxAge + "); the bucket would delete"
                    + " the record before its end: give the bucket a longer max age, or ask for less"));
        }
    }

    /** Runs a conditional write: its revision, or null when the key is no longer at the expected revision. */
    private static Long conditionally(KvCall<Long> write) throws IOException, JetStreamApiException {
        try {
            return write.call();
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                return null;
            }
            throw e;
        }
    }

    private StoredRecord read(KeyValueEntry entry, RecordKey id) {
        StoredRecord record = StoredRecord.decode(entry.getValue());
        if (!record.scope().equals(id.scope().value()) || !record.key().equals(id.key().value())) {
            throw new IllegalStateException("the entry under this record's key name belongs to another scope or key");
        }
        return record;
    }

    private <T> T call(String operation, Scope scope, KvCall<T> body) {
        try {
            return body.call();
        } catch (LeaseLostException e) {
            throw e;
        } catch (ValueTooLarge e) {
            throw StoreException.failed(NAME, operation, scope, new IllegalArgumentException(e.getMessage()));
        } catch (IOException | JetStreamApiException e) {
            // Perhaps a change of leader: the next lease decision reads the clock afresh.
            clock.forget();
            throw StoreException.failed(NAME, operation, scope, e);
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
            throw StoreException.failed(NAME, operation, scope,
                    new IllegalStateException("the entry in the bucket is not one this store can read (" + e.getClass().getSimpleName() + ")", e));
        } catch (RuntimeException e) {
            // A closed connection, a damaged entry.
            throw StoreException.failed(NAME, operation, scope, e);
        }
    }

    static long millis(KeyValueEntry entry) {
        return entry.getCreated().toInstant().toEpochMilli();
    }

    /** {@code r.} and the base64url SHA-256 of the length-prefixed scope and key: valid in a key name, one per pair. */
    static String keyName(RecordKey id) {
        byte[] scope = id.scope().value().getBytes(StandardCharsets.UTF_8);
        byte[] key = id.key().value().getBytes(StandardCharsets.UTF_8);
        ByteBuffer both = ByteBuffer.allocate(8 + scope.length + key.length).putInt(scope.length).put(scope).putInt(key.length).put(key);
        try {
            return RECORD_PREFIX + KEY_ENCODER.encodeToString(MessageDigest.getInstance("SHA-256").digest(both.array()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    @FunctionalInterface
    private interface KvCall<T> {
        T call() throws IOException, JetStreamApiException;
    }

    /** A value over the bucket's limit: refused before writing, and not worth retrying. */
    private static final class ValueTooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        ValueTooLarge(String message) {
            super(message);
        }
    }

    // ---- building ------------------------------------------------------------------------------

    /** Settings of a {@link NatsKvIdempotencyStore}. */
    public static final class Builder {
        private static final Pattern BUCKET_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
        private static final int MOST_REPLICAS_NEEDED = 3;

        private final Connection connection;
        private String bucket = "idem";
        private ReplicationCheck replicationCheck = ReplicationCheck.REFUSE;
        private int createReplicas;
        private Duration createMaxAge;
        private Duration requestTimeout = Duration.ofSeconds(2);

        private Builder(Connection connection) {
            this.connection = connection;
        }

        /** The bucket's name: 1 to 64 letters, digits, {@code _} or {@code -}. Default {@code idem}. */
        public Builder bucket(String bucket) {
            if (bucket == null || !BUCKET_NAME.matcher(bucket).matches()) {
                throw new IllegalArgumentException("bucket name '" + bucket + "' is not 1 to 64 letters, digits, '_' or '-'");
            }
            this.bucket = bucket;
            return this;
        }

        /**
         * Creates the bucket if it does not exist: file storage, one entry per key, {@code replicas}
         * replicas and entries kept {@code maxAge} after their last write. Without it, {@link #build()}
         * refuses a missing bucket.
         *
         * @param replicas 1 to 5; 3 survives the loss of any one server
         * @param maxAge   at least 1 s: the longest retention and lease the store accepts
         */
        public Builder createBucket(int replicas, Duration maxAge) {
            if (replicas < 1 || replicas > 5) {
                throw new IllegalArgumentException("replicas must be 1 to 5, was " + replicas);
            }
            Objects.requireNonNull(maxAge, "maxAge is null");
            if (maxAge.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("maxAge must be at least 1 s, was " + maxAge);
            }
            this.createReplicas = replicas;
            this.createMaxAge = maxAge;
            return this;
        }

        /**
         * What {@link #build()} does about a bucket with fewer replicas than the cluster can give, or a
         * memory-backed one: refuse, warn or nothing. Default {@link ReplicationCheck#REFUSE}.
         */
        public Builder replicationCheck(ReplicationCheck replicationCheck) {
            this.replicationCheck = Objects.requireNonNull(replicationCheck, "replicationCheck is null");
            return this;
        }

        /**
         * How long each JetStream request waits for its answer: 10 ms to 1 min; while the stream elects
         * a new leader, or has no majority, calls fail with a {@link StoreException} after this long.
         * Default 2 s.
         */
        public Builder requestTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout is null");
            if (timeout.toMillis() < 10 || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("request timeout must be 10 ms to 1 min, was " + timeout);
            }
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * Finds (or creates) the bucket and checks its replication.
         *
         * @throws StoreException        if the servers cannot be reached
         * @throws IllegalStateException if the bucket is missing and not to be created, or fails the
         *                               {@linkplain #replicationCheck replication check}
         */
        public NatsKvIdempotencyStore build() {
            KeyValueOptions options = KeyValueOptions.builder().jsRequestTimeout(requestTimeout).build();
            try {
                KeyValueManagement management = connection.keyValueManagement(options);
                KeyValueStatus status = status(management);
                checkReplication(status);
                requireLeaderReads(status);
                long payload = connection.getMaxPayload() - ENVELOPE;
                long valueLimit = status.getMaxValueSize() > 0 ? Math.min(status.getMaxValueSize(), payload) : payload;
                Duration age = status.getTtl() == null ? Duration.ZERO : status.getTtl();
                return new NatsKvIdempotencyStore(connection.keyValue(bucket, options), bucket, valueLimit, age);
            } catch (IOException | JetStreamApiException e) {
                throw StoreException.failed(NAME, "connect", null, e);
            }
        }

        private KeyValueStatus status(KeyValueManagement management) throws IOException, JetStreamApiException {
            try {
                return management.getStatus(bucket);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != STREAM_NOT_FOUND) {
                    throw e;
                }
                if (createMaxAge == null) {
                    throw new IllegalStateException("NATS KV store: the bucket '" + bucket + "' does not exist; create it with three replicas"
                            + " and file storage (nats kv add " + bucket + " --replicas 3 --storage file --history 1 --ttl 48h),"
                            + " or let the store create it (createBucket)");
                }
                KeyValueStatus created = management.create(KeyValueConfiguration.builder().name(bucket).replicas(createReplicas)
                        .storageType(StorageType.File).maxHistoryPerKey(1).ttl(createMaxAge).build());
                // Reads go to the stream's leader, which has every acknowledged write (see requireLeaderReads).
                StreamConfiguration stream = created.getBackingStreamInfo().getConfiguration();
                connection.jetStreamManagement().updateStream(StreamConfiguration.builder(stream).allowDirect(false).build());
                return management.getStatus(bucket);
            }
        }

        /**
         * A replicated bucket that allows direct gets lets any replica answer a read, and a follower
         * may not have applied the latest acknowledged write yet: an owner would read an older
         * revision and believe its lease lost. The store decides on reads, so they must come from
         * the leader.
         */
        private void requireLeaderReads(KeyValueStatus status) {
            StreamConfiguration stream = status.getBackingStreamInfo().getConfiguration();
            if (status.getReplicas() > 1 && stream.getAllowDirect()) {
                throw new IllegalStateException("NATS KV store: the bucket '" + bucket + "' lets any replica answer reads"
                        + " (allow_direct: true on stream KV_" + bucket + "), and a replica behind the leader would answer"
                        + " with an older revision; turn direct gets off (allow_direct: false) so reads come from the leader");
            }
        }

        private void checkReplication(KeyValueStatus status) {
            if (replicationCheck == ReplicationCheck.SKIP) {
                return;
            }
            String problem = null;
            int wanted = Math.min(MOST_REPLICAS_NEEDED, clusterSize());
            if (status.getStorageType() == StorageType.Memory) {
                problem = "the bucket '" + bucket + "' keeps its entries in memory (storage: memory), so a restart of its servers"
                        + " forgets every record; create it with file storage (--storage file)";
            } else if (status.getReplicas() < wanted) {
                problem = "the bucket '" + bucket + "' has " + status.getReplicas() + " replica(s) (replicas: " + status.getReplicas()
                        + ") where the cluster can give " + wanted + ", so losing one server can lose acknowledged records;"
                        + " raise them (nats stream edit KV_" + bucket + " --replicas " + wanted + ")";
            }
            if (problem == null) {
                return;
            }
            if (replicationCheck == ReplicationCheck.REFUSE) {
                throw new IllegalStateException("NATS KV store: " + problem
                        + " (or set the replication check to WARN or SKIP for a server known to be a throwaway)");
            }
            LOG.log(System.Logger.Level.WARNING, "NATS KV store: " + problem);
        }

        /** The servers of the cluster the connection is on, as the server announces them to clients. */
        private int clusterSize() {
            var info = connection.getServerInfo();
            if (info == null || info.getCluster() == null || info.getConnectURLs() == null) {
                return 1;
            }
            return Math.max(1, info.getConnectURLs().size());
        }
    }
}
