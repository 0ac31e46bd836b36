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
    private final ScheduledFuture<?> task;

    private LeaseKeeper(IdempotencyStore store, RecordKey id, long token, Duration lease, Runnable onLost) {
        long period = Math.max(1, lease.toMillis() / 3);
        this.task = TIMER.scheduleAtFixedRate(() -> renew(store, id, token, lease, onLost), period, period, TimeUnit.MILLISECONDS);
    }

    public static LeaseKeeper start(IdempotencyStore store, RecordKey id, long token, Duration lease, Runnable onLost) {
        return new LeaseKeeper(store, id, token, lease, onLost);
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
                task.cancel(false);
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
        task.cancel(false);
    }
}
