package dev.idem;

import dev.idem.internal.LeaseRenewer;
import dev.idem.internal.PhaseLog;
import dev.idem.internal.Tombstones;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.HeldLease;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One owner's run of an operation: phases, checkpoints, lease renewal and the final write.
 *
 * <p><b>Self-fencing.</b> Before it starts a phase, when the operation calls {@link #ensureOwned},
 * and before it stores the result, the owner checks that its lease was confirmed to last at least a
 * fifth of the lease beyond now: confirmed means measured on this JVM's monotonic clock from before
 * the claim or renewal that the store accepted was sent, so a pause of the process (GC, a frozen VM)
 * counts against it. If not, it confirms the lease once more with a renewal of its own; if that is
 * refused or fails, it stops with {@link LeaseLostException} instead of acting on a lease another
 * owner may have taken over.
 */
final class RunningExecution implements OpenExecution {
    private static final int MAX_PHASE_NAME = 64;
    /** The part of the lease that must still be ahead for an owner to start something. */
    private static final int MARGIN_DIVISOR = 5;
    /**
     * The phase an {@link OperationRegistry} operation's input is checkpointed under, right after the
     * claim: reserved, so no operation's own phase can overwrite it.
     */
    static final String INPUT_PHASE = "idem:input";

    private final Idem idem;
    private final IdempotencyStore store;
    private final RecordKey id;
    private final Fingerprint fingerprint;
    private final long token;
    private final int attempt;
    private final Map<String, byte[]> finishedPhases = new LinkedHashMap<>();
    private final boolean resumed;
    private final long claimSentAt;
    private volatile boolean leaseLost;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile LeaseRenewer.Lease lease;

    /** @param claimSentAt {@link System#nanoTime()} read before the claim that acquired the record was sent */
    RunningExecution(Idem idem, ClaimRequest request, ClaimOutcome.Acquired acquired, long claimSentAt) {
        this.idem = idem;
        this.claimSentAt = claimSentAt;
        this.store = idem.store();
        this.id = request.id();
        this.fingerprint = request.fingerprint();
        this.token = acquired.token();
        this.attempt = acquired.attempt();
        acquired.recoveryPoint().ifPresent(point -> finishedPhases.putAll(PhaseLog.decode(point.state())));
        this.resumed = !finishedPhases.isEmpty();
    }

    /** Runs {@code operation} as this owner: {@link #open}, the operation, then {@link #complete} or {@link #fail}. */
    Outcome run(Operation operation) {
        StoredResponse response;
        try {
            open();
            response = operation.run(this);
            if (response == null) {
                throw new IllegalStateException("operation for scope '" + id.scope() + "' returned null; return a StoredResponse");
            }
        } catch (Throwable failure) {
            if (!ended.get()) {
                fail(failure);
            }
            throw propagate(failure);
        }
        return complete(response);
    }

    /** Reports the claim and starts holding the lease (renewed while the operation runs). */
    void open() {
        idem.listener().claimed(id.scope(), attempt);
        if (attempt > 1) {
            idem.listener().takeover(id.scope(), attempt);
        }
        try {
            if (idem.renewLeases()) {
                store.prepareRenewals();
            }
            lease = idem.leases().hold(new HeldLease(id, token), claimSentAt, idem.renewLeases(), this::onLeaseLost);
        } catch (RuntimeException | Error failure) {
            fail(failure);
            throw failure;
        }
    }

    @Override
    public Outcome complete(StoredResponse response) {
        Objects.requireNonNull(response, "response is null");
        end();
        // The effect ran, so nothing about the response's size gives the key back.
        Optional<StoredResponse> toStore = idem.toStore(response);
        if (toStore.isEmpty()) {
            giveBack(null);
            return new Outcome.Executed(response, false, attempt);
        }
        try {
            ensureVouched("complete");
            store.complete(id, token, toStore.get(), idem.retention());
        } catch (LeaseLostException e) {
            onLeaseLost();
            throw e;
        }
        // Only after the record completed: a tombstone exists only for a key whose response was stored.
        Tombstones tombstones = idem.tombstoneWriter();
        if (tombstones != null) {
            tombstones.write(id, fingerprint, toStore.get().status());
        }
        return new Outcome.Executed(response, true, attempt);
    }

    @Override
    public void fail(Throwable failure) {
        Objects.requireNonNull(failure, "failure is null");
        end();
        giveBack(failure);
    }

    /** The one end of this execution: stops the lease's renewal; a second end is the caller's bug. */
    private void end() {
        if (!ended.compareAndSet(false, true)) {
            throw new IllegalStateException("the execution for scope '" + id.scope() + "' was already completed or failed");
        }
        if (lease != null) {
            lease.close();
        }
    }

    /**
     * Frees the key for the next call: deleted when nothing finished, so it re-executes; otherwise
     * its lease is ended so the next call resumes after the last checkpoint.
     */
    private void giveBack(Throwable failure) {
        try {
            if (finishedPhases.isEmpty()) {
                store.release(id, token);
            } else {
                store.renew(id, token, Duration.ZERO);
            }
        } catch (LeaseLostException lost) {
            onLeaseLost();
            if (failure != null) {
                failure.addSuppressed(lost);
            }
        } catch (RuntimeException storeFailure) {
            // The lease will run out on its own and a retry will take over.
            if (failure != null) {
                failure.addSuppressed(storeFailure);
            } else {
                throw storeFailure;
            }
        }
    }

    private RuntimeException propagate(Throwable failure) {
        if (failure instanceof RuntimeException runtime) {
            return runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new OperationFailedException(id.scope(), (Exception) failure);
    }

    /** Reports the loss once per execution, whichever write (renewal, checkpoint, final) found it first. */
    private synchronized void onLeaseLost() {
        if (!leaseLost) {
            leaseLost = true;
            idem.listener().leaseLost(id.scope());
        }
    }

    @Override
    public Scope scope() {
        return id.scope();
    }

    @Override
    public int attempt() {
        return attempt;
    }

    @Override
    public boolean resumed() {
        return resumed;
    }

    @Override
    public <T> T phase(String name, PhaseCodec<T> codec, PhaseAction<T> action) throws Exception {
        checkPhaseName(name);
        if (INPUT_PHASE.equals(name)) {
            throw new IllegalArgumentException("phase name '" + INPUT_PHASE + "' is reserved for a registered operation's stored input");
        }
        return runPhase(name, codec, action);
    }

    /**
     * The registered operation's stored input: {@code firstRun} checkpointed as the reserved phase when
     * no earlier attempt stored one, else the earlier attempt's. {@code firstRun} null means only an
     * earlier attempt's is acceptable (a completer resumes; it never invents an input).
     */
    byte[] storedInput(byte[] firstRun) throws Exception {
        return runPhase(INPUT_PHASE, PhaseCodec.BYTES, downstreamKey -> {
            if (firstRun == null) {
                throw new IllegalStateException("the record of scope '" + id.scope() + "' holds no stored input to resume from");
            }
            return firstRun;
        });
    }

    private <T> T runPhase(String name, PhaseCodec<T> codec, PhaseAction<T> action) throws Exception {
        byte[] earlier = finishedPhases.get(name);
        if (earlier != null) {
            T result = codec.decode(earlier);
            idem.listener().phase(id.scope(), name, true);
            return result;
        }
        ensureOwned();
        T result = action.run(downstreamKey(name));
        byte[] encoded = codec.encode(result);
        Map<String, byte[]> next = new LinkedHashMap<>(finishedPhases);
        next.put(name, encoded);
        try {
            store.checkpoint(id, token, RecoveryPoint.of(name, PhaseLog.encode(next)));
        } catch (LeaseLostException e) {
            onLeaseLost();
            throw e;
        }
        finishedPhases.put(name, encoded);
        idem.listener().phase(id.scope(), name, false);
        return result;
    }

    @Override
    public String downstreamKey(String phase) {
        checkPhaseName(phase);
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {id.scope().value(), id.key().value(), phase}) {
                sha.update(part.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return phase + "-" + HexFormat.of().formatHex(sha.digest(), 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    @Override
    public void ensureOwned() {
        ensureVouched("phase");
    }

    /** Self-fencing (see the class comment): returns only if the lease is confirmed to hold a margin beyond now. */
    private void ensureVouched(String operation) {
        if (leaseLost) {
            throw LeaseLostException.staleToken(id.scope(), token, operation);
        }
        long leaseNanos = idem.lease().toNanos();
        long margin = leaseNanos / MARGIN_DIVISOR;
        if (lease.vouchedFor(margin)) {
            return;
        }
        long sentAt = System.nanoTime();
        try {
            store.renew(id, token, idem.lease());
        } catch (LeaseLostException e) {
            lease.lost();
            throw e;
        } catch (RuntimeException e) {
            throw LeaseLostException.unconfirmed(id.scope(), token, operation, e);
        }
        lease.confirmedUntil(sentAt + leaseNanos);
        if (!lease.vouchedFor(margin)) {
            // The confirming call itself took most of the lease: another owner could already be near.
            throw LeaseLostException.unconfirmed(id.scope(), token, operation, null);
        }
    }

    private static void checkPhaseName(String name) {
        try {
            IdempotencyKey.checkVisibleAscii("phase name", name == null ? "" : name, MAX_PHASE_NAME);
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }
}
