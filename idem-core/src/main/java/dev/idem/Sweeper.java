package dev.idem;

import dev.idem.internal.SafeListener;
import dev.idem.spi.Purgeable;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Deletes expired records in bounded batches on a schedule, so the store stays as large as the
 * traffic of one retention period. Anything {@link Purgeable} can be swept: a store, an inbox, an
 * outbox. Each batch is one short store call; a run stops at the first
 * short batch or after {@code maxBatchesPerRun}, leaving the rest to the next run.
 */
public final class Sweeper implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.idem.sweeper");

    private final Purgeable store;
    private final Duration interval;
    private final int batchSize;
    private final int maxBatchesPerRun;
    private final IdemListener listener;
    private ScheduledExecutorService timer;

    private Sweeper(Builder b) {
        this.store = b.store;
        this.interval = b.interval;
        this.batchSize = b.batchSize;
        this.maxBatchesPerRun = b.maxBatchesPerRun;
        this.listener = new SafeListener(b.listener);
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

    /** One run: purges batches until one comes back short. Returns the number of records deleted. */
    public int sweepOnce() {
        int total = 0;
        for (int batch = 0; batch < maxBatchesPerRun; batch++) {
            int deleted = store.purge(batchSize);
            total += deleted;
            if (deleted < batchSize) {
                break;
            }
        }
        if (total > 0) {
            listener.purged(total);
        }
        return total;
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

    public static final class Builder {
        private final Purgeable store;
        private Duration interval = Duration.ofMinutes(1);
        private int batchSize = 500;
        private int maxBatchesPerRun = 100;
        private IdemListener listener = IdemListener.noop();

        private Builder(Purgeable store) {
            this.store = Objects.requireNonNull(store, "store is null");
        }

        /** Time between runs. Default 1 minute. */
        public Builder interval(Duration interval) {
            Objects.requireNonNull(interval, "interval is null");
            if (interval.toMillis() < 1) {
                throw new IllegalArgumentException("interval must be at least 1 ms, was " + interval);
            }
            this.interval = interval;
            return this;
        }

        /** Records deleted per store call; keeps each delete short. Default 500. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > 100_000) {
                throw new IllegalArgumentException("batchSize must be 1-100000, was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Upper bound of batches per run. Default 100. */
        public Builder maxBatchesPerRun(int maxBatchesPerRun) {
            if (maxBatchesPerRun < 1) {
                throw new IllegalArgumentException("maxBatchesPerRun must be at least 1, was " + maxBatchesPerRun);
            }
            this.maxBatchesPerRun = maxBatchesPerRun;
            return this;
        }

        /** Told how many expired rows each sweep purged, for metrics. Default: nothing. */
        public Builder listener(IdemListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        public Sweeper build() {
            return new Sweeper(this);
        }
    }
}
