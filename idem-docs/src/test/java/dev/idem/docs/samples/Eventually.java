package dev.idem.docs.samples;

import java.time.Duration;

/** Waits for something that happens on another thread (a relay, a consumer), up to a deadline. */
final class Eventually {
    /** A condition that may need the database or a broker to answer. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    private Eventually() {
    }

    static void await(String what, Duration within, Condition condition) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + within + ": " + what);
            }
            Thread.sleep(50);
        }
    }
}
