package dev.idem.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with full jitter: a random delay in [0, min(cap, base·2^n)). Not thread-safe. */
public final class Backoff {
    private final long baseMillis;
    private final long capMillis;
    private int attempt;

    public Backoff(Duration base, Duration cap) {
        this.baseMillis = Math.max(1, base.toMillis());
        this.capMillis = Math.max(baseMillis, cap.toMillis());
    }

    public Duration next() {
        long ceiling = Math.min(capMillis, baseMillis << Math.min(attempt, 20));
        attempt++;
        return Duration.ofMillis(1 + ThreadLocalRandom.current().nextLong(ceiling));
    }
}
