package dev.idem;

import dev.idem.internal.SafeListener;
import dev.idem.spi.Arguments;
import dev.idem.spi.Purgeable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Deletes expired records in bounded batches on a schedule, so the store stays as large as the
 * traffic of one retention period. Anything {@link Purgeable} can be swept: a store, an inbox, an
 * outbox. Each batch is one short store call; a run stops at the first
 * short batch or after {@code maxBatchesPerRun}, leaving the rest to the next run.
 *
 * <p>{@link #status()} tells how it is doing, for meters and operators: rows removed, the last run,
 * and its {@linkplain Status#lag lag} — how long ago it last found nothing expired left, which bounds
 * how far behind expiry the table can be.
 */
public final class Sweeper implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.idem.sweeper");
    private static final int MAX_NAME = 64;

    private final Purgeable store;
    private final String name;
    private final Duration interval;
    private final int batchSize;
    private final int maxBatchesPerRun;
    private final IdemListener listener;
    private final Clock clock;
    private ScheduledExecutorService timer;
    /** Replaced whole after each run, so a reader never sees half of one run and half of another. */
    private volatile Status status;

    private Sweeper(Builder b) {
        this.store = b.store;
        this.name = b.name;
        this.interval = b.interval;
        this.batchSize = b.batchSize;
        this.maxBatchesPerRun = b.maxBatchesPerRun;
        this.listener = new SafeListener(b.listener);
        this.clock = b.clock;
        // Nothing is known to be swept yet: the lag counts from the sweeper's creation.
        this.status = new Status(name, 0, null, 0, false, clock.instant());
    }

    public static Builder builder(Purgeable store) {
        return new Builder(store);
    }

    /** Starts sweeping every {@code interval} on a daemon thread. */
    public synchronized Sweeper start() {
        if (timer != null) {
            throw new IllegalStateException("sweeper already started");
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-sweeper");
            t.setDaemon(true);
            return t;
        });
        long period = interval.toMillis();
        timer.scheduleWithFixedDelay(this::sweepQuietly, period, period, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Whether {@link #start()} was called and {@link #close()} was not. */
    public synchronized boolean isRunning() {
        return timer != null;
    }

    /**
     * One run: purges batches until one comes back short. Returns the number of records deleted.
     *
     * @throws RuntimeException the store's failure; the rows deleted before it stay deleted and are counted
     */
    public int sweepOnce() {
        Instant startedAt = clock.instant();
        int total = 0;
        boolean drained = false;
        try {
            for (int batch = 0; batch < maxBatchesPerRun; batch++) {
                int deleted = store.purge(batchSize);
                total += deleted;
                if (deleted < batchSize) {
                    drained = true;
                    break;
                }
            }
        } catch (RuntimeException e) {
            record(startedAt, total, false, true);
            throw e;
        }
        record(startedAt, total, drained, false);
        if (total > 0) {
            listener.purged(total);
        }
        return total;
    }

    private synchronized void record(Instant startedAt, int removed, boolean drained, boolean failed) {
        Status before = status;
        // A drained run deleted everything that had expired when it started: the lag restarts there.
        Instant caughtUpAt = drained ? startedAt : before.caughtUpAt();
        status = new Status(name, before.removed() + removed, startedAt, removed, failed, caughtUpAt);
    }

    /** What it sweeps, as given to {@link Builder#name}. */
    public String name() {
        return name;
    }

    /** A snapshot of how the sweeper is doing. */
    public Status status() {
        return status;
    }

    private void sweepQuietly() {
        try {
            sweepOnce();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again; log and try at the next tick.
            LOG.log(System.Logger.Level.WARNING, "idem sweeper run failed; will retry", e);
        }
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    @Override
    public String toString() {
        return "Sweeper[" + name + ", every " + interval + ", batches of " + batchSize + "]";
    }

    /**
     * How a sweeper is doing.
     *
     * @param name           what it sweeps
     * @param removed        rows deleted since it was built
     * @param lastRun        when the last run started; {@code null} before the first
     * @param lastRunRemoved rows the last run deleted
     * @param lastRunFailed  whether the last run ended with the store's failure
     * @param caughtUpAt     when the last run that left nothing expired started (the sweeper's
     *                       creation until one has)
     */
    public record Status(String name, long removed, Instant lastRun, int lastRunRemoved, boolean lastRunFailed,
                         Instant caughtUpAt) {

        /**
         * How far behind expiry the swept rows may be at {@code now}: rows that expired after
         * {@link #caughtUpAt} may still be there. A healthy sweeper stays below its interval plus a
         * run; a lag that keeps growing means it cannot keep up (or keeps failing).
         */
        public Duration lag(Instant now) {
            Duration lag = Duration.between(caughtUpAt, now);
            return lag.isNegative() ? Duration.ZERO : lag;
        }
    }

    public static final class Builder {
        private final Purgeable store;
        private String name = "records";
        private Duration interval = Duration.ofMinutes(1);
        private int batchSize = 500;
        private int maxBatchesPerRun = 100;
        private IdemListener listener = IdemListener.noop();
        private Clock clock = Clock.systemUTC();

        private Builder(Purgeable store) {
            this.store = Objects.requireNonNull(store, "store is null");
        }

        /**
         * What it sweeps, for logs, meters and operators: e.g. {@code records}, {@code inbox},
         * {@code outbox}. Default {@code records}. 1-64 visible ASCII characters.
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name is null");
            try {
                IdempotencyKey.checkVisibleAscii("sweeper name", name, MAX_NAME);
            } catch (InvalidKeyException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
            this.name = name;
            return this;
        }

        /** Time between runs. Default 1 minute. */
        public Builder interval(Duration interval) {
            this.interval = Arguments.atLeastOneMilli("interval", interval);
            return this;
        }

        /** Records deleted per store call; keeps each delete short. Default 500. */
        public Builder batchSize(int batchSize) {
            this.batchSize = Arguments.between("batchSize", batchSize, 1, 100_000);
            return this;
        }

        /** Upper bound of batches per run. Default 100. */
        public Builder maxBatchesPerRun(int maxBatchesPerRun) {
            this.maxBatchesPerRun = Arguments.atLeast("maxBatchesPerRun", maxBatchesPerRun, 1);
            return this;
        }

        /** Told how many expired rows each sweep purged, for metrics. Default: nothing. */
        public Builder listener(IdemListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        /** The clock {@link Status} times are read from. Default the system's UTC clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock is null");
            return this;
        }

        public Sweeper build() {
            return new Sweeper(this);
        }
    }
}
