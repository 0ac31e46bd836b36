package dev.idem.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * The argument checks of idem's builders, for store implementations and idem's own modules alike. Each
 * returns its value, so that a setter reads {@code this.lease = Arguments.positive("lease", lease)}, and
 * each failure names the setting and the bad value (never anything the value came from).
 */
public final class Arguments {
    private Arguments() {
    }

    /**
     * @throws NullPointerException     if {@code value} is null
     * @throws IllegalArgumentException if {@code value} is zero or negative
     */
    public static Duration positive(String name, Duration value) {
        Objects.requireNonNull(value, () -> name + " is null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }

    /**
     * For durations that are handed on in whole milliseconds, where a positive value below 1 ms would be 0.
     *
     * @throws NullPointerException     if {@code value} is null
     * @throws IllegalArgumentException if {@code value} is shorter than 1 ms
     */
    public static Duration atLeastOneMilli(String name, Duration value) {
        Objects.requireNonNull(value, () -> name + " is null");
        if (value.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms, was " + value);
        }
        return value;
    }

    /**
     * @throws NullPointerException     if {@code value} is null
     * @throws IllegalArgumentException if {@code value} lies outside [{@code min}, {@code max}]
     */
    public static Duration between(String name, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, () -> name + " is null");
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /** @throws IllegalArgumentException if {@code value} lies outside [{@code min}, {@code max}] */
    public static int between(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + "-" + max + ", was " + value);
        }
        return value;
    }

    /** @throws IllegalArgumentException if {@code value} is below {@code min} */
    public static int atLeast(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
        }
        return value;
    }
}
