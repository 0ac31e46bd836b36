package dev.idem;

/** The body of one phase. It receives the phase's downstream key to pass to an idempotent foreign call. */
@FunctionalInterface
public interface PhaseAction<T> {
    T run(String downstreamKey) throws Exception;
}
