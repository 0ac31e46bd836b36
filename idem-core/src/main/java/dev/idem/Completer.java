package dev.idem;

import dev.idem.spi.Arguments;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.StoreAdministration;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Finishes operations whose owner died and whose client did not come back: on a schedule it lists the
 * records in progress whose lease ended at least {@linkplain Builder#delay a delay} ago, takes each
 * over through the engine's ordinary claim, and resumes the {@linkplain OperationRegistry registered
 * operation} named by the input stored with the claim after its last checkpoint, with the same derived
 * downstream keys. The record completes as if the client had retried; a later retry replays the response.
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>Only records whose claim stored a registered operation's name and input are run. A record naming
 *     an operation this registry does not know is left alone and reported ({@link Listener#unregistered});
 *     a record without a stored input (run by a plain {@link Operation}) is left for its client.</li>
 * <li>The claim fences: a live owner is never displaced, and of two completers (or a completer and a
 *     client's retry) racing for one record exactly one runs it; the other is told it is in progress.</li>
 * <li>Attempts are the record's own ({@link RecordSummary#attempt()}: the first owner's, every retry's
 *     and every completer's), so every completer instance agrees on them. The completer takes a record
 *     over only while its attempt is below {@link Builder#maxAttempts}, and after attempt {@code n} it waits
 *     {@code delay * 2^(n-1)} (at most {@link Builder#maxBackoff}) from the end of the lease before the next.</li>
 * <li><b>Parked</b>: a record that reached {@code maxAttempts} stays in progress with its lease over;
 *     the completer reports it once ({@link Listener#parked}, {@link Status#parked()}) and never runs it
 *     again. An operator inspects and releases it through {@link StoreAdministration}; a client's retry
 *     still takes it over, as without a completer. Retention ends it otherwise.</li>
 * </ul>
 *
 * <p>One daemon thread polls and runs the operations one after another; a failure of one record (the
 * operation's, the store's) is counted, reported and never stops the loop. The store must implement
 * {@link StoreAdministration}; every idem store does (a Redis store lists records only when built with
 * {@code keepKeys(true)}; otherwise every poll fails, is logged, and nothing is completed).
 */
public final class Completer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.idem.completer");

    private final Idem engine;
    private final IdempotencyStore store;
    private final StoreAdministration administration;
    private final OperationRegistry registry;
    private final Duration delay;
    private final Duration pollInterval;
    private final int maxAttempts;
    private final Duration maxBackoff;
    private final Listener listener;
    private final Clock clock;
    private ScheduledExecutorService timer;
    /** Held for a poll, not the instance's monitor: start, close and isRunning never wait for a poll's operations. */
    private final Object polling = new Object();
    /** Parked and unregistered records already reported, as of the last poll (guarded by {@code polling}): each is reported once while it stays listed. */
    private Map<Reported, Result> reported = Map.of();
    private volatile Status status = new Status(0, 0, 0, 0, 0, null, false);

    private Completer(Builder b) {
        // Its own engine: a completer never waits for a live owner, it comes back at the next poll.
        this.engine = b.idem.toBuilder().inFlightPolicy(InFlightPolicy.reject()).build();
        this.store = b.idem.store();
        this.administration = administration(store);
        this.registry = b.registry;
        this.delay = b.delay;
        this.pollInterval = b.pollInterval;
        this.maxAttempts = b.maxAttempts;
        this.maxBackoff = b.maxBackoff;
        this.listener = b.listener;
        this.clock = b.clock;
    }

    /** The one place the administrative view of the store is reached. */
    private static StoreAdministration administration(IdempotencyStore store) {
        return store.administration().orElseThrow(() -> new IllegalArgumentException("a completer lists expired leases, which "
                + store.getClass().getSimpleName() + " cannot: its IdempotencyStore.administration() is empty"));
    }

    /** A completer over {@code idem}'s store and settings (lease, retention, storage policy, listener), running {@code registry}'s operations. */
    public static Builder builder(Idem idem, OperationRegistry registry) {
        return new Builder(idem, registry);
    }

    /** Starts polling every {@code pollInterval} on a daemon thread. */
    public synchronized Completer start() {
        if (timer != null) {
            throw new IllegalStateException("completer already started");
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-completer");
            t.setDaemon(true);
            return t;
        });
        long period = pollInterval.toMillis();
        timer.scheduleWithFixedDelay(this::pollQuietly, period, period, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Whether {@link #start()} was called and {@link #close()} was not. */
    public synchronized boolean isRunning() {
        return timer != null;
    }

    /**
     * One poll: every due record of one listing ({@link StoreAdministration#MAX_LIST} at most) is
     * taken over and run, one after another. Returns how many completed.
     *
     * @throws RuntimeException the store's failure to list the expired leases ({@link StoreException}, or
     *                          {@link UnsupportedOperationException} from a store that cannot list them); a
     *                          failure of one record is counted, not thrown
     */
    public int completeOnce() {
        synchronized (polling) {
            return poll();
        }
    }

    private int poll() {
        Instant startedAt = clock.instant();
        List<RecordSummary> expired;
        try {
            expired = administration.expiredLeases(StoreAdministration.MAX_LIST);
        } catch (RuntimeException e) {
            status = status.after(startedAt, status.parked(), status.unregistered(), true);
            throw e;
        }
        Map<Reported, Result> seen = new HashMap<>();
        int completed = 0;
        for (RecordSummary summary : expired) {
            if (Thread.currentThread().isInterrupted()) {
                break; // closing: the rest waits for the next completer
            }
            Result result = handleQuietly(summary, seen);
            if (result == Result.COMPLETED || result == Result.FAILED) {
                // Counted as each record ends, so that a reader of the status never lags a completion.
                status = status.counting(result == Result.COMPLETED);
                completed += result == Result.COMPLETED ? 1 : 0;
            }
        }
        reported = seen;
        status = status.after(startedAt, count(seen, Result.PARKED), count(seen, Result.UNREGISTERED), false);
        return completed;
    }

    private enum Result { COMPLETED, FAILED, PARKED, UNREGISTERED, SKIPPED }

    private static int count(Map<Reported, Result> seen, Result result) {
        return (int) seen.values().stream().filter(result::equals).count();
    }

    private Result handleQuietly(RecordSummary summary, Map<Reported, Result> seen) {
        try {
            return handle(summary, seen);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            // The operation's failure (or the store's) for this record; its lease was given back and the next poll sees it again.
            LOG.log(System.Logger.Level.WARNING, "idem completer: attempt " + (summary.attempt() + 1) + " for scope '"
                    + summary.id().scope() + "' failed", e);
            listener.failed(summary.id().scope(), summary.attempt() + 1, e);
            return Result.FAILED;
        }
    }

    private Result handle(RecordSummary summary, Map<Reported, Result> seen) {
        if (!summary.phasesDone().contains(RunningExecution.INPUT_PHASE)) {
            return Result.SKIPPED; // a plain operation's record: there is no input to run it with, only its client can finish it
        }
        Reported listed = new Reported(summary.id(), summary.token());
        Result earlier = reported.get(listed);
        if (earlier != null) {
            seen.put(listed, earlier); // parked or unregistered under this token at the last poll: reported then
            return earlier;
        }
        boolean parked = summary.attempt() >= maxAttempts;
        if (!parked && Duration.between(summary.leaseUntil(), summary.asOf()).compareTo(waitBefore(summary.attempt(), delay, maxBackoff)) < 0) {
            return Result.SKIPPED;
        }
        Optional<IdempotencyRecord> record = store.find(summary.id());
        if (record.isEmpty() || record.get().state() != RecordState.IN_PROGRESS || record.get().token() != summary.token()) {
            return Result.SKIPPED; // completed, released or taken over since it was listed
        }
        Optional<String> operation = OperationRegistry.storedName(record.get().recoveryPoint());
        Scope scope = summary.id().scope();
        if (operation.isEmpty() || !registry.contains(operation.get())) {
            String name = operation.orElse("(unreadable)");
            LOG.log(System.Logger.Level.WARNING, "idem completer: a record of scope '" + scope + "' names operation '" + name
                    + "', which is not registered; left alone");
            listener.unregistered(scope, name);
            seen.put(listed, Result.UNREGISTERED);
            return Result.UNREGISTERED;
        }
        if (parked) {
            LOG.log(System.Logger.Level.WARNING, "idem completer: parked a record of scope '" + scope + "' after "
                    + summary.attempt() + " attempts; an operator may inspect and release it");
            listener.parked(summary);
            seen.put(listed, Result.PARKED);
            return Result.PARKED;
        }
        RecordKey id = summary.id();
        Outcome outcome = engine.execute(id.scope(), id.key(), record.get().fingerprint(), registry.resumeStored());
        if (outcome instanceof Outcome.Executed executed) {
            if (!executed.stored()) {
                listener.failed(scope, executed.attempt(), null);
                return Result.FAILED;
            }
            listener.completed(scope, executed.attempt());
            return Result.COMPLETED;
        }
        return Result.SKIPPED; // another completer or the client got there first
    }

    /**
     * How long after the last lease ended the attempt after {@code attempt} may start: {@code delay},
     * doubled for each attempt after the first, at most {@code maxBackoff} and never less than {@code delay}.
     */
    static Duration waitBefore(int attempt, Duration delay, Duration maxBackoff) {
        Duration wait = delay.multipliedBy(1L << Math.min(Math.max(attempt - 1, 0), 30));
        Duration capped = wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
        return capped.compareTo(delay) < 0 ? delay : capped;
    }

    /** A snapshot of how the completer is doing. */
    public Status status() {
        return status;
    }

    private void pollQuietly() {
        try {
            completeOnce();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again; log and try at the next tick.
            LOG.log(System.Logger.Level.WARNING, "idem completer: listing expired leases failed; will retry", e);
        }
    }

    /** Stops polling; an operation running at that moment is interrupted and its lease given back as after any failure. */
    @Override
    public void close() {
        ScheduledExecutorService stopping;
        synchronized (this) {
            stopping = timer;
            timer = null;
        }
        if (stopping != null) {
            stopping.shutdownNow();
            try {
                stopping.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Completer[" + registry.names() + ", delay " + delay + ", every " + pollInterval + ", maxAttempts " + maxAttempts + "]";
    }

    private record Reported(RecordKey id, long token) {
    }

    /**
     * How a completer is doing.
     *
     * @param polls        polls since it was built
     * @param completed    records it completed (counted as each completes, polls at each poll's end)
     * @param failed       attempts of its that failed (the operation threw, its response was not stored, or the store failed)
     * @param parked       records the last poll found parked (at {@code maxAttempts})
     * @param unregistered records the last poll found naming an operation the registry does not know
     * @param lastPoll     when the last poll started; {@code null} before the first
     * @param lastPollFailed whether the last poll could not list the expired leases
     */
    public record Status(long polls, long completed, long failed, int parked, int unregistered, Instant lastPoll, boolean lastPollFailed) {
        Status counting(boolean completedOne) {
            return new Status(polls, completed + (completedOne ? 1 : 0), failed + (completedOne ? 0 : 1), parked, unregistered, lastPoll,
                    lastPollFailed);
        }

        Status after(Instant startedAt, int parkedNow, int unregisteredNow, boolean listingFailed) {
            return new Status(polls + 1, completed, failed, parkedNow, unregisteredNow, startedAt, listingFailed);
        }
    }

    /**
     * Told what the completer did, for metrics and operators; events carry the scope, never the key.
     * Called on the completer's thread; what it throws is logged and ignored.
     */
    public interface Listener {
        /** The completer completed a record at that attempt. */
        default void completed(Scope scope, int attempt) {
        }

        /** An attempt of the completer's failed: {@code failure} is what the operation or store threw, null when the operation's response was not stored. */
        default void failed(Scope scope, int attempt, Throwable failure) {
        }

        /** A record reached {@code maxAttempts} and is parked for an operator; reported once while it stays so. */
        default void parked(RecordSummary record) {
        }

        /** A record names an operation the registry does not know; it is left alone. Reported once while it stays so. */
        default void unregistered(Scope scope, String operation) {
        }
    }

    /** Validates each setting as it is set. */
    public static final class Builder {
        private final Idem idem;
        private final OperationRegistry registry;
        private Duration delay = Duration.ofMinutes(1);
        private Duration pollInterval = Duration.ofSeconds(10);
        private int maxAttempts = 5;
        private Duration maxBackoff = Duration.ofMinutes(30);
        private Listener listener = new Listener() {
        };
        private Clock clock = Clock.systemUTC();

        private Builder(Idem idem, OperationRegistry registry) {
            this.idem = Objects.requireNonNull(idem, "idem is null");
            this.registry = Objects.requireNonNull(registry, "registry is null");
        }

        /**
         * How long after a lease ended the completer leaves the record to its client ("the client had its
         * chance") before taking it over. Default 1 minute. Choose it longer than your clients' retries take.
         */
        public Builder delay(Duration delay) {
            this.delay = Arguments.atLeastOneMilli("delay", delay);
            return this;
        }

        /** Time between polls. Default 10 s. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Arguments.atLeastOneMilli("pollInterval", pollInterval);
            return this;
        }

        /**
         * The most attempts a record gets, counting its first owner's and every takeover's (2-1000, default 5): at
         * this many the record is parked.
         */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = Arguments.between("maxAttempts", maxAttempts, 2, 1000);
            return this;
        }

        /** The longest wait between attempts on one record (the delay doubles per attempt up to it). Default 30 minutes. */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = Arguments.atLeastOneMilli("maxBackoff", maxBackoff);
            return this;
        }

        /** Told of completions, failed attempts, parked and unregistered records. Default: nothing. */
        public Builder listener(Listener listener) {
            this.listener = new SafeCompleterListener(Objects.requireNonNull(listener, "listener is null"));
            return this;
        }

        /** The clock {@link Status} times are read from; default the system's UTC clock. Leases are judged by the store's clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock is null");
            return this;
        }

        /** @throws IllegalArgumentException if the idem's store does not implement {@link StoreAdministration} */
        public Completer build() {
            return new Completer(this);
        }
    }

    /** What a listener throws is logged and ignored: it must not stop the loop nor count as the record's failure. */
    private record SafeCompleterListener(Listener delegate) implements Listener {
        @Override
        public void completed(Scope scope, int attempt) {
            guard(() -> delegate.completed(scope, attempt));
        }

        @Override
        public void failed(Scope scope, int attempt, Throwable failure) {
            guard(() -> delegate.failed(scope, attempt, failure));
        }

        @Override
        public void parked(RecordSummary record) {
            guard(() -> delegate.parked(record));
        }

        @Override
        public void unregistered(Scope scope, String operation) {
            guard(() -> delegate.unregistered(scope, operation));
        }

        private static void guard(Runnable call) {
            try {
                call.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "idem completer listener failed; ignored", e);
            }
        }
    }
}
