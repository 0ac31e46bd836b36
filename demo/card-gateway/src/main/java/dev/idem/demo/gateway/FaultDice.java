package dev.idem.demo.gateway;

import java.util.Random;

/**
 * Decides probabilistic faults from a seeded generator, so a run with the same seed draws the same
 * sequence. Certain faults (p = 1) and absent ones (p = 0) draw nothing, so a header asking for a
 * fault does not shift the sequence the startup faults see.
 */
final class FaultDice {
    private final Random random;

    FaultDice(long seed) {
        this.random = new Random(seed);
    }

    boolean roll(double probability) {
        if (probability <= 0) {
            return false;
        }
        if (probability >= 1) {
            return true;
        }
        synchronized (random) {
            return random.nextDouble() < probability;
        }
    }
}
