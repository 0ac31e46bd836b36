package dev.idem.internal;

import dev.idem.LeaseLostException;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Renews one owner's lease every third of its length while an operation runs, so long operations
 * keep their key. If a renewal is rejected (someone took over) it reports once and stops renewing.
 * Transient store errors are retried at the next tick: the lease still has two thirds to run.
 */
public final class LeaseKeeper implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.idem.lease");
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "idem-lease-renewer");
        t.setDaemon(true);
        return t;
    });

    private final AtomicBoolean stopped = new AtomicBoolean();
    private volatile ScheduledFuture<?> task;

    private LeaseKeeper() {
    }

    public static LeaseKeeper start(IdempotencyStore store, RecordKey id, long token, Duration lease, Runnable onLost) {
        LeaseKeeper keeper = new LeaseKeeper();
        long period = Math.max(1, lease.toMillis() / 3);
        // Scheduled after construction: with a tiny lease the first tick may run before start() returns.
        keeper.task = TIMER.scheduleAtFixedRate(() -> keeper.renew(store, id, token, lease, onLost), period, period, TimeUnit.MILLISECONDS);
        return keeper;
    }

    private void renew(IdempotencyStore store, RecordKey id, long token, Duration lease, Runnable onLost) {
        if (stopped.get()) {
            return;
        }
        try {
            store.renew(id, token, lease);
        } catch (LeaseLostException e) {
            // A renewal racing with close() after complete() is not a loss: check again.
            if (stopped.compareAndSet(false, true)) {
                cancel();
                onLost.run();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "lease renewal failed for scope '" + id.scope() + "'; will retry", e);
        }
    }

    /** Stops renewing. Idempotent. */
    @Override
    public void close() {
        stopped.set(true);
        cancel();
    }

    private void cancel() {
        ScheduledFuture<?> scheduled = task;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }
}
