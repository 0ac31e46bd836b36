package dev.idem;

import dev.idem.internal.Backoff;
import dev.idem.internal.LeaseRenewer;
import dev.idem.internal.SafeListener;
import dev.idem.internal.Tombstones;
import dev.idem.spi.Arguments;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs an operation at most once per (scope, key) over any {@link IdempotencyStore}; every other call
 * with that key gets the first call's stored response, or is told it is still in progress.
 *
 * <pre>{@code
 * Idem idem = Idem.builder().store(store).build();
 * Outcome outcome = idem.execute(scope, key, fingerprint, execution -> {
 *     String charge = execution.phase("charge", downstreamKey -> gateway.charge(downstreamKey, amount));
 *     return StoredResponse.of(201, charge.getBytes(UTF_8));
 * });
 * }</pre>
 *
 * Immutable and thread-safe; {@link #toBuilder()} derives a variant with other settings (per endpoint, say).
 * Idem keeps no per-key state in the JVM: everything lives in the store.
 */
public final class Idem {
    /** Polling while waiting for another call starts here and doubles up to the cap, with full jitter. */
    private static final Duration WAIT_BACKOFF_BASE = Duration.ofMillis(10);
    private static final Duration WAIT_BACKOFF_CAP = Duration.ofMillis(250);

    private final IdempotencyStore store;
    private final Duration lease;
    private final Duration retention;
    private final InFlightPolicy inFlightPolicy;
    private final StoragePolicy storagePolicy;
    private final Clock clock;
    private final IdemListener listener;
    private final int maxResponseBytes;
    private final boolean renewLeases;
    private final LeaseRenewer leases;
    private final Duration tombstoneWindow;
    /** Null when tombstones are off. */
    private final Tombstones tombstones;

    private Idem(Builder b) {
        this.store = b.store;
        this.lease = b.lease;
        this.retention = b.retention;
        this.inFlightPolicy = b.inFlightPolicy;
        this.storagePolicy = b.storagePolicy;
        this.clock = b.clock;
        this.listener = b.listener instanceof SafeListener ? b.listener : new SafeListener(b.listener);
        this.maxResponseBytes = b.maxResponseBytes;
        this.renewLeases = b.renewLeases;
        this.leases = new LeaseRenewer(store, lease);
        this.tombstoneWindow = b.tombstoneWindow;
        this.tombstones = b.tombstoneWindow.isZero() ? null
                : new Tombstones(store, lease, retention.plus(b.tombstoneWindow), b.clock);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this instance's settings, to derive a variant. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.store = store;
        b.lease = lease;
        b.retention = retention;
        b.inFlightPolicy = inFlightPolicy;
        b.storagePolicy = storagePolicy;
        b.clock = clock;
        b.listener = listener;
        b.maxResponseBytes = maxResponseBytes;
        b.renewLeases = renewLeases;
        b.tombstoneWindow = tombstoneWindow;
        return b;
    }

    /**
     * Runs {@code operation} if this call acquires the key, else answers with the stored response,
     * an in-progress answer, a mismatch, or (with {@linkplain Builder#tombstones tombstones}) that the
     * key's response expired.
     *
     * <p>If the operation throws, or returns a response the storage policy does not store, the key is
     * given back (released, or its lease ended if a phase finished) and the exception propagates:
     * unchecked ones as they are, checked ones wrapped in {@link OperationFailedException}. A response
     * over {@link #maxResponseBytes()} is not a failure: the effect ran, so it completes the key, stored
     * as {@link #storable} says, and this call's outcome carries it whole.
     *
     * @throws LeaseLostException if another owner took over before this one could complete; the
     *                            response was not stored and the new owner's result stands
     * @throws StoreException     if the store failed
     */
    public Outcome execute(Scope scope, IdempotencyKey key, Fingerprint fingerprint, Operation operation) {
        Objects.requireNonNull(operation, "operation is null");
        Claimed claimed = claim(scope, key, fingerprint);
        return claimed.owner() != null ? claimed.owner().run(operation) : claimed.answer();
    }

    /**
     * Claims the key for an operation that runs outside this call (a reactive chain, a Jakarta REST
     * resource between its filters): the same claim, waiting and answers as {@link #execute}, but
     * when this call acquires the key it returns {@link Start.Owned} with an {@link OpenExecution}
     * whose lease is held until the caller ends it with {@link OpenExecution#complete} or
     * {@link OpenExecution#fail}. Blocks for the store's calls (and, under a waiting
     * {@link InFlightPolicy}, for the wait): call it where blocking is allowed.
     *
     * @throws StoreException if the store failed
     */
    public Start start(Scope scope, IdempotencyKey key, Fingerprint fingerprint) {
        Claimed claimed = claim(scope, key, fingerprint);
        if (claimed.owner() == null) {
            return new Start.Answered(claimed.answer());
        }
        claimed.owner().open();
        return new Start.Owned(claimed.owner());
    }

    /** Either the execution this call acquired (not yet opened) or the answer to give instead. */
    private record Claimed(RunningExecution owner, Outcome answer) {
    }

    /** The one claim loop of {@link #execute} and {@link #start}: claims, and waits as the in-flight policy says. */
    private Claimed claim(Scope scope, IdempotencyKey key, Fingerprint fingerprint) {
        ClaimRequest request = new ClaimRequest(new RecordKey(scope, key), fingerprint, lease, retention);
        Instant deadline = null;
        Backoff backoff = null;
        while (true) {
            // Read before the claim is sent: the lease it grants cannot end before this instant plus the lease.
            long sentAt = System.nanoTime();
            ClaimOutcome claim = store.claim(request);
            if (claim instanceof ClaimOutcome.Acquired acquired) {
                Tombstones.Found found = buried(request, acquired);
                if (found instanceof Tombstones.Found.None) {
                    return new Claimed(new RunningExecution(this, request, acquired, sentAt), null);
                }
                if (found instanceof Tombstones.Found.Completed completed) {
                    listener.expired(scope);
                    return new Claimed(null, new Outcome.Expired(completed.completedAt(), completed.status()));
                }
                // A tombstone being written waits like a record in progress; another fingerprint's is a mismatch.
                claim = found instanceof Tombstones.Found.Writing writing
                        ? new ClaimOutcome.InProgress(writing.retryAfter()) : new ClaimOutcome.Mismatch();
            }
            if (!(claim instanceof ClaimOutcome.InProgress inProgress) || deadline == null && !inFlightPolicy.waits()) {
                return new Claimed(null, answer(scope, claim));
            }
            Duration retryAfter = inProgress.retryAfter();
            if (deadline == null) {
                listener.inProgress(scope);
                deadline = clock.instant().plus(inFlightPolicy.maxWait());
                backoff = new Backoff(WAIT_BACKOFF_BASE, WAIT_BACKOFF_CAP);
            }
            Duration left = Duration.between(clock.instant(), deadline);
            if (left.isNegative() || left.isZero() || !sleep(min(backoff.next(), left))) {
                return new Claimed(null, Outcome.InProgress.lookAgain(retryAfter));
            }
        }
    }

    /**
     * What the key's tombstone says, for a claim that acquired a fresh record (a takeover's record is
     * alive, so it never completed): anything but {@link Tombstones.Found.None} means nothing runs, and
     * the claim is given back first.
     */
    private Tombstones.Found buried(ClaimRequest request, ClaimOutcome.Acquired acquired) {
        if (tombstones == null || acquired.takeover()) {
            return new Tombstones.Found.None();
        }
        Tombstones.Found found;
        try {
            found = tombstones.find(request.id(), request.fingerprint(), true);
        } catch (RuntimeException | Error failure) {
            giveBack(request, acquired, failure);
            throw failure;
        }
        if (!(found instanceof Tombstones.Found.None)) {
            giveBack(request, acquired, null);
        }
        return found;
    }

    /** Releases a fresh claim on which nothing ran; a store failure is attached to {@code failure}, or thrown. */
    private void giveBack(ClaimRequest request, ClaimOutcome.Acquired acquired, Throwable failure) {
        try {
            store.release(request.id(), acquired.token());
        } catch (LeaseLostException lost) {
            // Its lease ran out and another call took the key: nothing of this call's remains.
        } catch (RuntimeException storeFailure) {
            if (failure == null) {
                throw storeFailure;
            }
            failure.addSuppressed(storeFailure);
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static boolean sleep(Duration duration) {
        try {
            Thread.sleep(Math.max(1, duration.toMillis()));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The store records live in. */
    public IdempotencyStore store() {
        return store;
    }

    /** How long an owner may run between renewals. */
    public Duration lease() {
        return lease;
    }

    /** How long a completed response is replayable. */
    public Duration retention() {
        return retention;
    }

    /** How long a tombstone outlives its key's response ({@link Builder#tombstones}); zero when off. */
    public Duration tombstones() {
        return tombstoneWindow;
    }

    /** Null when tombstones are off. */
    Tombstones tombstoneWriter() {
        return tombstones;
    }

    /**
     * For a mode that claims in a transaction of its own (idem-jdbc's transactional one): what the
     * key's tombstone answers for the fresh claim {@code acquired} — {@link Outcome.Expired} or
     * {@link Outcome.Mismatch}, with the listener told — or empty to run the operation: always empty
     * when tombstones are off or the claim is a takeover. A tombstone still being written counts as
     * none. The caller gives its claim back (rolls back) when there is an answer.
     */
    public Optional<Outcome> tombstoneAnswer(ClaimRequest request, ClaimOutcome.Acquired acquired) {
        Objects.requireNonNull(request, "request is null");
        Objects.requireNonNull(acquired, "acquired is null");
        if (tombstones == null || acquired.takeover()) {
            return Optional.empty();
        }
        Tombstones.Found found = tombstones.find(request.id(), request.fingerprint(), false);
        if (found instanceof Tombstones.Found.Completed completed) {
            listener.expired(request.id().scope());
            return Optional.of(new Outcome.Expired(completed.completedAt(), completed.status()));
        }
        if (found instanceof Tombstones.Found.Mismatch) {
            listener.mismatch(request.id().scope());
            return Optional.of(new Outcome.Mismatch());
        }
        return Optional.empty();
    }

    /**
     * For a mode that completes records on its own: writes the tombstone of {@code request}'s record,
     * which completed (durably: committed) with {@code status}. Does nothing when tombstones are off;
     * never throws (a failure is logged, and leaves the key as without tombstones).
     */
    public void writeTombstone(ClaimRequest request, int status) {
        Objects.requireNonNull(request, "request is null");
        if (tombstones != null) {
            tombstones.write(request.id(), request.fingerprint(), status);
        }
    }

    /** What a call does when another holds the key. */
    public InFlightPolicy inFlightPolicy() {
        return inFlightPolicy;
    }

    /** Which responses are stored: the one decision, for every mode that runs on this engine. */
    public StoragePolicy storagePolicy() {
        return storagePolicy;
    }

    /**
     * What this engine answers for a claim that did not acquire the record, without waiting, with the
     * listener told: a replay, a mismatch, or in progress. The one mapping every mode shares (the
     * transactional one too).
     *
     * @throws IllegalArgumentException for {@link ClaimOutcome.Acquired}: an acquired claim is answered
     *                                  by running the operation
     */
    public Outcome answer(Scope scope, ClaimOutcome claim) {
        Objects.requireNonNull(claim, "claim is null");
        if (claim instanceof ClaimOutcome.Replay replay) {
            listener.replayed(scope);
            return new Outcome.Replayed(replay.response());
        }
        if (claim instanceof ClaimOutcome.Mismatch) {
            listener.mismatch(scope);
            return new Outcome.Mismatch();
        }
        if (claim instanceof ClaimOutcome.InProgress inProgress) {
            listener.inProgress(scope);
            return Outcome.InProgress.lookAgain(inProgress.retryAfter());
        }
        throw new IllegalArgumentException("an acquired claim is answered by running the operation, not by the claim");
    }

    /**
     * The storage decision for what an operation returned, as a value: {@code response} as this engine
     * stores it ({@link #storable}), or empty when the {@linkplain #storagePolicy() storage policy}
     * does not store it (then the key is to be given back). The one rule for every mode.
     */
    public Optional<StoredResponse> toStore(StoredResponse response) {
        StoredResponse stored = storable(response);
        return storagePolicy.stores(stored) ? Optional.of(stored) : Optional.empty();
    }

    /** The listener, wrapped so that what it throws is logged and ignored. */
    public IdemListener listener() {
        return listener;
    }

    /**
     * The largest body stored. A response with a larger body is still the call's result (the first
     * caller gets it in full, in {@link Outcome.Executed}), but is stored as {@link #storable} says:
     * status and headers, an empty body and {@value StoredResponse#BODY_OMITTED_HEADER}{@code : true}.
     */
    public int maxResponseBytes() {
        return maxResponseBytes;
    }

    /**
     * {@code response} as this engine stores it: unchanged when its body is within
     * {@link #maxResponseBytes()}, else its status and headers with an empty body and
     * {@value StoredResponse#BODY_OMITTED_HEADER}{@code : true}, so that a retry learns the outcome
     * instead of running the operation again. The one rule for every mode that stores a response
     * (the transactional one too).
     */
    public StoredResponse storable(StoredResponse response) {
        Objects.requireNonNull(response, "response is null");
        return response.bodyLength() > maxResponseBytes ? response.withBodyOmitted() : response;
    }

    boolean renewLeases() {
        return renewLeases;
    }

    LeaseRenewer leases() {
        return leases;
    }

    @Override
    public String toString() {
        return "Idem[store=" + store.getClass().getSimpleName() + ", lease=" + lease + ", retention=" + retention
                + ", inFlight=" + inFlightPolicy + ", " + storagePolicy + ", maxResponseBytes=" + maxResponseBytes
                + ", renewLeases=" + renewLeases + ", tombstones=" + tombstoneWindow + "]";
    }

    /** Validates each setting as it is set; {@link #build()} checks what depends on several. */
    public static final class Builder {
        private IdempotencyStore store;
        private Duration lease = Duration.ofSeconds(30);
        private Duration retention = Duration.ofHours(24);
        private InFlightPolicy inFlightPolicy = InFlightPolicy.reject();
        private StoragePolicy storagePolicy = StoragePolicy.defaults();
        private Clock clock = Clock.systemUTC();
        private IdemListener listener = IdemListener.noop();
        private int maxResponseBytes = 8 * 1024 * 1024;
        private boolean renewLeases = true;
        private Duration tombstoneWindow = Duration.ZERO;

        private Builder() {
        }

        /** Required. */
        public Builder store(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store is null");
            return this;
        }

        /**
         * How long an owner may run (between renewals) before a retry may take over. Default 30 s.
         * Longer means a crashed owner's key stays blocked longer; shorter means more renewals.
         */
        public Builder lease(Duration lease) {
            Arguments.positive("lease", lease);
            this.lease = Arguments.atLeastOneMilli("lease", lease);
            return this;
        }

        /** How long a completed response is kept for replay. Default 24 h. */
        public Builder retention(Duration retention) {
            this.retention = Arguments.positive("retention", retention);
            return this;
        }

        /** Default {@link InFlightPolicy#reject()}. */
        public Builder inFlightPolicy(InFlightPolicy policy) {
            this.inFlightPolicy = Objects.requireNonNull(policy, "inFlightPolicy is null");
            return this;
        }

        /**
         * Which responses are stored for replay. Default {@link StoragePolicy#defaults()}: every status
         * but 408, 409, 425, 429 and 5xx.
         */
        public Builder storagePolicy(StoragePolicy policy) {
            this.storagePolicy = Objects.requireNonNull(policy, "storagePolicy is null");
            return this;
        }

        /** The clock for waiting deadlines. Leases are judged by the store's clock, not this one. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock is null");
            return this;
        }

        /** Told of claims, takeovers, replays, conflicts, mismatches, lost leases and phases, for metrics and tracing; what it throws is logged and ignored. Default: nothing. */
        public Builder listener(IdemListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        /**
         * Responses with a larger body are stored with their status and headers, an empty body and
         * {@code Idempotent-Body-Omitted: true} (see {@link Idem#storable}); the
         * caller that ran the operation still gets the whole response. Default 8 MiB.
         */
        public Builder maxResponseBytes(int maxResponseBytes) {
            if (maxResponseBytes < 0) {
                throw new IllegalArgumentException("maxResponseBytes must not be negative, was " + maxResponseBytes);
            }
            this.maxResponseBytes = maxResponseBytes;
            return this;
        }

        /** Renew the lease every third of its length while an operation runs. Default true. */
        public Builder renewLeases(boolean renewLeases) {
            this.renewLeases = renewLeases;
            return this;
        }

        /**
         * Keep a tombstone of every completed key for {@code window} after its response's retention:
         * a retry in that time gets {@link Outcome.Expired} (nothing runs) instead of running again as a
         * new request, and a reuse of the key for another request gets {@link Outcome.Mismatch}. Default
         * {@link Duration#ZERO}: off, and a key is forgotten with its response.
         *
         * <p>A tombstone is a second record under a reserved scope ({@code idem%tombstone <scope>}, same
         * key) holding the status and the completion time only, written through the ordinary claim and
         * complete, so every store keeps it. What it costs: two more writes per completed key (a claim
         * and a completion, after the record's own), one more read per claim that acquires a fresh key,
         * and one small record per key for {@code retention + window}. A crash between the record's
         * completion and the tombstone's leaves no tombstone: that key is forgotten with its response,
         * as with tombstones off.
         *
         * @throws IllegalArgumentException if {@code window} is negative
         */
        public Builder tombstones(Duration window) {
            Objects.requireNonNull(window, "tombstones window is null");
            if (window.isNegative()) {
                throw new IllegalArgumentException("the tombstones window must not be negative, was " + window);
            }
            this.tombstoneWindow = window;
            return this;
        }

        public Idem build() {
            if (store == null) {
                throw new IllegalStateException("store is required: Idem.builder().store(...)");
            }
            if (retention.compareTo(lease) < 0) {
                throw new IllegalStateException("retention (" + retention + ") must not be shorter than the lease (" + lease + ")");
            }
            return new Idem(this);
        }
    }
}
