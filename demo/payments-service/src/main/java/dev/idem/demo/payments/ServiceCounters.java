package dev.idem.demo.payments;

import dev.idem.IdemListener;
import dev.idem.Scope;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's events in this process, counted for {@code GET /internal/counters}: a fleet of
 * instances shows from these whether its faults bit (keys taken over from a dead or paused owner,
 * writes the store refused because another owner held the key by then) without reading logs.
 *
 * <p>One more {@link IdemListener} bean: the starter composes it with the others (Micrometer's), it
 * replaces none. The counts start at zero with the process.
 */
public final class ServiceCounters implements IdemListener {
    private final AtomicLong claims = new AtomicLong();
    private final AtomicLong takeovers = new AtomicLong();
    private final AtomicLong replays = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();
    private final AtomicLong mismatches = new AtomicLong();
    private final AtomicLong leasesLost = new AtomicLong();
    private final AtomicLong poolPressureHolds = new AtomicLong();
    private volatile boolean coalescesCommits;

    @Override
    public void claimed(Scope scope, int attempt) {
        claims.incrementAndGet();
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        takeovers.incrementAndGet();
    }

    @Override
    public void replayed(Scope scope) {
        replays.incrementAndGet();
    }

    @Override
    public void inProgress(Scope scope) {
        conflicts.incrementAndGet();
    }

    @Override
    public void mismatch(Scope scope) {
        mismatches.incrementAndGet();
    }

    /** The store refused a write of this execution (renewal, checkpoint or completion): its fencing token was stale. */
    @Override
    public void leaseLost(Scope scope) {
        leasesLost.incrementAndGet();
    }

    /** A handler held a pool connection for the pool-pressure fault. */
    void poolPressureHold() {
        poolPressureHolds.incrementAndGet();
    }

    /** Whether this process's store coalesces commits: a fleet shows which instance ran which. */
    void coalescesCommits(boolean on) {
        coalescesCommits = on;
    }

    /**
     * Every count by name, the process id (a restarted instance starts again from zero) and
     * {@code coalescesCommits} (1 or 0: a setting, not a count).
     */
    public Map<String, Long> snapshot() {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("pid", ManagementFactory.getRuntimeMXBean().getPid());
        counts.put("claims", claims.get());
        counts.put("takeovers", takeovers.get());
        counts.put("replays", replays.get());
        counts.put("conflicts", conflicts.get());
        counts.put("mismatches", mismatches.get());
        counts.put("leasesLost", leasesLost.get());
        counts.put("poolPressureHolds", poolPressureHolds.get());
        counts.put("coalescesCommits", coalescesCommits ? 1L : 0L);
        return counts;
    }
}
