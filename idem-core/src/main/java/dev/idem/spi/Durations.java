package dev.idem.spi;

import java.time.Duration;

/** Argument checks shared by the SPI's value types. */
final class Durations {
    private Durations() {
    }

    static void requirePositive(String name, Duration value) {
        if (value == null) {
            throw new NullPointerException(name + " is null");
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
