package dev.idem.internal;

import dev.idem.spi.HeldLease;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.Renewals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps the leases of every owner of one engine alive: every third of the lease, one
 * {@link IdempotencyStore#renewAll} call for all of them, so a thousand running operations cost one
 * round trip per tick, not a thousand.
 *
 * <p>Nothing one renewal does can starve the others. The tick only hands the call to a worker and
 * never waits for it; if a call hangs (a half-open connection, a lock), the next tick starts another
 * on another worker, up to {@link #MAX_IN_FLIGHT} at once. The store decides per lease (a locked
 * record is skipped, not waited for). And an owner never relies on renewals having worked: each
 * {@link Lease} knows until when its lease was last <em>confirmed</em> — the monotonic time read
 * before the confirming call was sent, plus the lease — and the owner checks that before it acts
 * ({@link Lease#vouchedFor}).
 */
public final class LeaseRenewer {
    /** Calls to the store at once per engine; beyond that a tick is skipped (the leases still run on). */
    static final int MAX_IN_FLIGHT = 3;
    private static final System.Logger LOG = System.getLogger("dev.idem.lease");
    /** Only schedules: never runs a store call itself. */
    private static final ScheduledExecutorService TICKER = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "idem-lease-ticker"));
    /** Runs the store calls; a hung call holds one thread, never the ticker. */
    private static final ExecutorService WORKERS = Executors.newCachedThreadPool(r -> daemon(r, "idem-lease-renewer"));

    private final IdempotencyStore store;
    private final Duration lease;
    private final long leaseNanos;
    private final Map<HeldLease, Lease> held = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private ScheduledFuture<?> tick;
    /** How often the tick was scheduled: once per busy spell, not once per lease (see {@link Lease#close}). */
    private long ticksScheduled;

    public LeaseRenewer(IdempotencyStore store, Duration lease) {
        this.store = store;
        this.lease = lease;
        this.leaseNanos = lease.toNanos();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Starts keeping a lease that was confirmed by a call sent at {@code confirmedAtNanos}
     * ({@link System#nanoTime()} before the claim was sent).
     *
     * @param renew  whether to renew it on ticks (else it only runs down, and the owner re-vouches)
     * @param onLost called once if a renewal finds the lease lost
     */
    public Lease hold(HeldLease id, long confirmedAtNanos, boolean renew, Runnable onLost) {
        Lease l = new Lease(id, confirmedAtNanos + leaseNanos, onLost);
        if (renew) {
            held.put(id, l);
            ensureTicking();
        }
        return l;
    }

    private synchronized void ensureTicking() {
        if (tick == null) {
            long period = Math.max(1, TimeUnit.NANOSECONDS.toMillis(leaseNanos) / 3);
            tick = TICKER.scheduleAtFixedRate(this::onTick, period, period, TimeUnit.MILLISECONDS);
            ticksScheduled++;
        }
    }

    /** How many times the tick was scheduled since this renewer was made. */
    synchronized long ticksScheduled() {
        return ticksScheduled;
    }

    private synchronized void stopTickingIfIdle() {
        if (held.isEmpty() && tick != null) {
            tick.cancel(false);
            tick = null;
        }
    }

    private void onTick() {
        if (held.isEmpty()) {
            stopTickingIfIdle();
            return;
        }
        if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
            inFlight.decrementAndGet();
            return;
        }
        List<Lease> due = new ArrayList<>(held.values());
        try {
            WORKERS.execute(() -> renew(due));
        } catch (RuntimeException e) {
            inFlight.decrementAndGet();
            throw e;
        }
    }

    private void renew(List<Lease> due) {
        try {
            List<HeldLease> ids = new ArrayList<>(due.size());
            for (Lease l : due) {
                ids.add(l.id);
            }
            long sentAt = System.nanoTime();
            Renewals result = store.renewAll(ids, lease);
            for (Lease l : due) {
                if (result.renewed().contains(l.id)) {
                    l.confirmedUntil(sentAt + leaseNanos);
                } else if (result.lost().contains(l.id)) {
                    l.renewalFoundLost();
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "lease renewal of " + due.size() + " lease(s) failed; will retry", e);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** One owner's lease as this engine knows it. */
    public final class Lease implements AutoCloseable {
        private final HeldLease id;
        private final AtomicLong confirmedUntil;
        private final Runnable onLost;
        private volatile boolean lost;
        private boolean closed;

        private Lease(HeldLease id, long confirmedUntil, Runnable onLost) {
            this.id = id;
            this.confirmedUntil = new AtomicLong(confirmedUntil);
            this.onLost = onLost;
        }

        /** Records a confirmation sent at a time that makes the lease last until {@code untilNanos}. */
        public void confirmedUntil(long untilNanos) {
            confirmedUntil.accumulateAndGet(untilNanos, Math::max);
        }

        /**
         * Whether the lease was confirmed to last at least {@code marginNanos} beyond now: the owner
         * may start something that must not run if another owner could have taken over.
         */
        public boolean vouchedFor(long marginNanos) {
            return !lost && System.nanoTime() + marginNanos < confirmedUntil.get();
        }

        public boolean isLost() {
            return lost;
        }

        /** Marks the lease lost (a write found the token stale) and stops renewing it. */
        public void lost() {
            synchronized (this) {
                if (lost) {
                    return;
                }
                lost = true;
            }
            close();
            onLost.run();
        }

        /** A renewal found the token stale: a loss, unless the owner had already finished (its own final write ended the lease). */
        private void renewalFoundLost() {
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            lost();
        }

        /**
         * Stops renewing. Idempotent. The tick is left running: the next one finds nothing held and
         * stops it. Stopping it here would schedule and cancel a tick per lease when owners run one
         * at a time (each cancelled tick stays in the ticker's queue until its time, and wakes the
         * ticker then), a cost on every request of a lightly loaded server.
         */
        @Override
        public void close() {
            synchronized (this) {
                closed = true;
            }
            held.remove(id, this);
        }
    }
}
