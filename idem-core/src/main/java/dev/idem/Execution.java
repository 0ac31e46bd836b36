package dev.idem;

/**
 * The running operation's view of its claim: which attempt this is and how to run phases.
 *
 * <p>A phase runs at most once per record across crashes, in this sense: once it has finished and
 * been checkpointed, no later attempt runs it again; it gets the stored result. A phase that was
 * interrupted before its checkpoint runs again on the next attempt, with the same
 * {@link #downstreamKey downstream key}, so an idempotent downstream (a card gateway honouring
 * {@code Idempotency-Key}) deduplicates the repeat.
 */
public interface Execution {

    Scope scope();

    /** 1 on a first run, more when this run took over from an owner whose lease ran out. */
    int attempt();

    /** True when an earlier attempt finished at least one phase. */
    boolean resumed();

    /**
     * Runs {@code action} unless this phase already finished in an earlier attempt, checkpoints its
     * result, and returns it (or the earlier result).
     *
     * @param name a name unique within the operation: 1–64 visible ASCII characters
     * @throws LeaseLostException if the lease was lost before the phase could start or checkpoint
     */
    <T> T phase(String name, PhaseCodec<T> codec, PhaseAction<T> action) throws Exception;

    /** {@link #phase(String, PhaseCodec, PhaseAction)} for a textual result. */
    default String phase(String name, PhaseAction<String> action) throws Exception {
        return phase(name, PhaseCodec.STRING, action);
    }

    /**
     * The key to send downstream for {@code phase}: derived from scope, key and phase, the same on
     * every attempt. It is a digest, so neither the principal nor the client's key leaves the service.
     */
    String downstreamKey(String phase);

    /** Throws {@link LeaseLostException} if another owner may have taken over; for long loops between phases. */
    void ensureOwned();
}
