package dev.idem.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that moves only when told, and a sleeper that records every wait and moves the clock by
 * it instead of waiting. Sync waits ({@link #sleep}) and async ones ({@link #delayedExecutor}) go to
 * one list, so a test asserts the same thing for both paths. No test needs the wall clock.
 */
final class FakeTime extends Clock implements Sleeper {
    private final AtomicReference<Instant> now;
    private final List<Duration> waits = new CopyOnWriteArrayList<>();
    private final List<String> paths = new CopyOnWriteArrayList<>();

    FakeTime(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    FakeTime() {
        this(Instant.parse("2030-01-01T00:00:00Z"));
    }

    void advance(Duration d) {
        now.updateAndGet(t -> t.plus(d));
    }

    /** Every wait the client asked for, in order. */
    List<Duration> waits() {
        return List.copyOf(waits);
    }

    Duration totalWait() {
        return waits.stream().reduce(Duration.ZERO, Duration::plus);
    }

    /** "sleep" or "delayedExecutor" per wait: which path asked. */
    List<String> paths() {
        return List.copyOf(paths);
    }

    @Override
    public void sleep(Duration duration) {
        waits.add(duration);
        paths.add("sleep");
        advance(duration);
    }

    @Override
    public Executor delayedExecutor(Duration delay, Executor executor) {
        return task -> {
            waits.add(delay);
            paths.add("delayedExecutor");
            advance(delay);
            executor.execute(task);
        };
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String toString() {
        return "FakeTime[" + now.get() + "]";
    }
}
