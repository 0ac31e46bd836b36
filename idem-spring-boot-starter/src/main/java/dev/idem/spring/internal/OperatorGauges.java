package dev.idem.spring.internal;

import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.StoreAdministration;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The gauges an on-call engineer alerts on that no event counts: {@code idem.records.past.lease},
 * the records in progress whose lease is over (owners that died or stalled and whose client has not
 * come back; at most {@link StoreAdministration#MAX_LIST}), and, per outbox bean, the events not sent
 * yet ({@code idem.outbox.pending}) and the oldest one's age ({@code idem.outbox.oldest.age}, in seconds).
 *
 * <p>Each is read from the store when scraped, at most once per {@link #FRESH_FOR}, so a scrape
 * every few seconds costs one indexed query per gauge and interval. A read that fails (the database
 * is down, or a Redis store built without {@code keepKeys}) reports NaN rather than a stale number.
 * See docs/operations.md.
 */
public final class OperatorGauges {
    /** How long a reading is reused before the next scrape reads the store again. */
    static final Duration FRESH_FOR = Duration.ofSeconds(10);

    private OperatorGauges() {
    }

    /** Registers {@code idem.records.past.lease} if {@code store} answers an operator's questions. */
    public static void registerStore(MeterRegistry registry, IdempotencyStore store) {
        store.administration().ifPresent(administration ->
                gauge(registry, "idem.records.past.lease", "records in progress whose lease is over (at most 1000 counted)",
                        () -> administration.expiredLeases(StoreAdministration.MAX_LIST).size(), null, null));
    }

    /** Registers the two outbox gauges of one outbox, tagged {@code outbox=name}. */
    public static void registerOutbox(MeterRegistry registry, String name, LongSupplier pending, LongSupplier oldestAgeMillis) {
        gauge(registry, "idem.outbox.pending", "outbox events not sent yet", pending, "outbox", name);
        gauge(registry, "idem.outbox.oldest.age", "age of the oldest outbox event not sent yet (0 when none is pending)",
                oldestAgeMillis, "outbox", name, "seconds", 1000.0);
    }

    private static void gauge(MeterRegistry registry, String name, String description, LongSupplier read, String tag, String value) {
        gauge(registry, name, description, read, tag, value, null, 1.0);
    }

    private static void gauge(MeterRegistry registry, String name, String description, LongSupplier read, String tag, String value,
            String baseUnit, double divisor) {
        Reading reading = new Reading(read, divisor);
        Gauge.Builder<Reading> builder = Gauge.builder(name, reading, Reading.VALUE).description(description).baseUnit(baseUnit)
                .strongReference(true);
        if (tag != null) {
            builder.tag(tag, value);
        }
        builder.register(registry);
    }

    /** One gauge's last reading and when it was taken. */
    private static final class Reading {
        static final ToDoubleFunction<Reading> VALUE = Reading::value;
        private final LongSupplier read;
        private final double divisor;
        private long takenAt;
        private double last = Double.NaN;

        Reading(LongSupplier read, double divisor) {
            this.read = read;
            this.divisor = divisor;
        }

        synchronized double value() {
            long now = System.nanoTime();
            if (takenAt == 0 || now - takenAt >= FRESH_FOR.toNanos()) {
                takenAt = now;
                try {
                    last = read.getAsLong() / divisor;
                } catch (RuntimeException unreadable) {
                    // A gauge that cannot be read says so; the store's own failure is reported where it is called.
                    last = Double.NaN;
                }
            }
            return last;
        }
    }
}
