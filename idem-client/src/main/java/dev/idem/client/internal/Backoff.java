package dev.idem.client.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"):
 * the n-th retry (n from 0) waits a uniformly random time in [0, min(cap, base·2^n)]. Full jitter
 * spreads a crowd of clients that failed together, so they do not come back together.
 *
 * <p>Thread-safe and stateless: the retry number is the caller's. An injected generator is used
 * under its own lock, because most {@link RandomGenerator}s are not thread-safe.
 */
public final class Backoff {
    private final long baseNanos;
    private final long capNanos;
    private final RandomGenerator random; // null: ThreadLocalRandom of the calling thread

    public Backoff(Duration base, Duration cap, RandomGenerator random) {
        this.baseNanos = base.toNanos();
        this.capNanos = cap.toNanos();
        this.random = random;
    }

    /** The ceiling of the n-th retry's delay: min(cap, base·2^n), without overflow. */
    public Duration ceiling(int retry) {
        return Duration.ofNanos(ceilingNanos(retry));
    }

    /** A random delay in [0, {@link #ceiling(int) ceiling(retry)}], both ends included. */
    public Duration delay(int retry) {
        long bound = ceilingNanos(retry) + 1; // nextLong's bound is exclusive; the ceiling itself is allowed
        long nanos;
        if (random == null) {
            nanos = ThreadLocalRandom.current().nextLong(bound);
        } else {
            synchronized (random) {
                nanos = random.nextLong(bound);
            }
        }
        return Duration.ofNanos(nanos);
    }

    private long ceilingNanos(int retry) {
        if (retry < 0) {
            throw new IllegalArgumentException("retry must not be negative, was " + retry);
        }
        // base·2^n overflows quickly; once it passes the cap only the cap matters.
        if (retry >= 62 || baseNanos > (capNanos >> retry)) {
            return capNanos;
        }
        return Math.min(capNanos, baseNanos << retry);
    }

    @Override
    public String toString() {
        return "full jitter, base=" + Duration.ofNanos(baseNanos) + ", cap=" + Duration.ofNanos(capNanos)
                + ", random=" + (random == null ? "ThreadLocalRandom" : random.getClass().getSimpleName());
    }
}
