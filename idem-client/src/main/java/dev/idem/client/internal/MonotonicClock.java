package dev.idem.client.internal;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that reads wall time once and then advances by {@link System#nanoTime()}. Deadlines
 * measured with it are immune to wall-clock steps (NTP corrections, a manual change), which could
 * otherwise cut a retry budget short or stretch it without bound. It still reads close enough to
 * wall time to turn a {@code Retry-After} HTTP-date into a delay.
 */
public final class MonotonicClock extends Clock {
    private final Instant origin;
    private final long originNanos;

    public MonotonicClock() {
        this.origin = Instant.now();
        this.originNanos = System.nanoTime();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (ZoneOffset.UTC.equals(zone)) {
            return this;
        }
        throw new UnsupportedOperationException("a deadline clock keeps UTC only");
    }

    @Override
    public Instant instant() {
        return origin.plusNanos(System.nanoTime() - originNanos);
    }

    @Override
    public String toString() {
        return "MonotonicClock";
    }
}
