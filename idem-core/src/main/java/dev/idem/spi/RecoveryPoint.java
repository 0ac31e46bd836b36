package dev.idem.spi;

import java.util.Arrays;
import java.util.Objects;

/**
 * Where an interrupted operation resumes: the name of the last phase that finished and an opaque
 * state the engine wrote with it (the results of all finished phases). Stores keep both verbatim.
 */
public final class RecoveryPoint {
    private final String phase;
    private final byte[] state;

    private RecoveryPoint(String phase, byte[] state) {
        this.phase = phase;
        this.state = state;
    }

    public static RecoveryPoint of(String phase, byte[] state) {
        if (phase == null || phase.isEmpty()) {
            throw new IllegalArgumentException("recovery point phase is missing or empty");
        }
        Objects.requireNonNull(state, "recovery point state is null");
        return new RecoveryPoint(phase, state.clone());
    }

    public String phase() {
        return phase;
    }

    public byte[] state() {
        return state.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecoveryPoint other && phase.equals(other.phase) && Arrays.equals(state, other.state);
    }

    @Override
    public int hashCode() {
        return 31 * phase.hashCode() + Arrays.hashCode(state);
    }

    @Override
    public String toString() {
        return "RecoveryPoint[phase=" + phase + ", state=" + state.length + " bytes]";
    }
}
