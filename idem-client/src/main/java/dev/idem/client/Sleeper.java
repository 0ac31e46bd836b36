package dev.idem.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * How the client waits between attempts. The default really waits; tests inject one that records
 * the delays (and advances a fake {@link java.time.Clock}) so they need no wall-clock timing.
 *
 * <p>{@link IdempotentHttpClient#send send} calls {@link #sleep(Duration)} on the caller's thread.
 * {@link IdempotentHttpClient#sendAsync sendAsync} never blocks a thread: it runs the next attempt
 * on {@link #delayedExecutor(Duration, Executor)}. A test double that stands in for both paths
 * overrides both methods.
 */
public interface Sleeper {

    /** Blocks the calling thread for {@code duration}. */
    void sleep(Duration duration) throws InterruptedException;

    /**
     * An executor that runs each task on {@code executor} after {@code delay}. By default
     * {@link CompletableFuture#delayedExecutor(long, TimeUnit, Executor)}: a timer hands the task
     * over, no thread waits.
     */
    default Executor delayedExecutor(Duration delay, Executor executor) {
        return CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS, executor);
    }

    /** The real thing: {@link Thread#sleep} and {@link CompletableFuture#delayedExecutor}. */
    static Sleeper system() {
        return SystemSleeper.INSTANCE;
    }
}

/** A named singleton rather than a lambda, so {@code toString()} says what it is. */
final class SystemSleeper implements Sleeper {
    static final SystemSleeper INSTANCE = new SystemSleeper();

    private SystemSleeper() {
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        long nanos = duration.toNanos();
        if (nanos > 0) {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        }
    }

    @Override
    public String toString() {
        return "Sleeper.system()";
    }
}
