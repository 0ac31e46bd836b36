package dev.idem;

import java.time.Duration;
import java.util.Objects;

/** What a call does when another call holds the same key: answer at once, or wait for its result. */
public final class InFlightPolicy {
    private static final InFlightPolicy REJECT = new InFlightPolicy(Duration.ZERO);

    private final Duration maxWait;

    private InFlightPolicy(Duration maxWait) {
        this.maxWait = maxWait;
    }

    /** Answer {@link Outcome.InProgress} at once (HTTP: 409 with {@code Retry-After}). */
    public static InFlightPolicy reject() {
        return REJECT;
    }

    /**
     * Poll with backoff until the other call completes (then replay its response), its lease ends
     * (then take over), or {@code maxWait} passes (then answer {@link Outcome.InProgress}).
     */
    public static InFlightPolicy waitUpTo(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait is null");
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("maxWait must be positive, was " + maxWait + " (use reject() not to wait)");
        }
        return new InFlightPolicy(maxWait);
    }

    public boolean waits() {
        return !maxWait.isZero();
    }

    public Duration maxWait() {
        return maxWait;
    }

    @Override
    public String toString() {
        return waits() ? "waitUpTo(" + maxWait + ")" : "reject()";
    }
}
