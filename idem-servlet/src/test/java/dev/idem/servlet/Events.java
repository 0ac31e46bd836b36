package dev.idem.servlet;

import dev.idem.IdemListener;
import dev.idem.Scope;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the engine's events so tests can wait for a state (never for a time). */
final class Events implements IdemListener {
    /** How long a test waits for an event that must come; a failure, not a timing assertion. */
    static final long PATIENCE_SECONDS = 30;

    final AtomicInteger claimed = new AtomicInteger();
    final AtomicInteger takeovers = new AtomicInteger();
    final AtomicInteger conflicts = new AtomicInteger();
    final AtomicInteger replayed = new AtomicInteger();
    final AtomicInteger leaseLost = new AtomicInteger();

    @Override
    public void claimed(Scope scope, int attempt) {
        bump(claimed);
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        bump(takeovers);
    }

    @Override
    public void inProgress(Scope scope) {
        bump(conflicts);
    }

    @Override
    public void replayed(Scope scope) {
        bump(replayed);
    }

    @Override
    public void leaseLost(Scope scope) {
        bump(leaseLost);
    }

    private synchronized void bump(AtomicInteger counter) {
        counter.incrementAndGet();
        notifyAll();
    }

    /** Waits until {@code counter} reaches {@code n}; false if it did not within the patience. */
    synchronized boolean await(AtomicInteger counter, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (counter.get() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
