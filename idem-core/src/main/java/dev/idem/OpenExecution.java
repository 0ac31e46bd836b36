package dev.idem;

/**
 * An execution this caller owns whose operation runs outside the engine's call: in a reactive chain,
 * or in a Jakarta REST resource between its request and response filters. {@link Idem#start} hands
 * it out with the lease held (and renewed, as during {@link Idem#execute}); phases work as in any
 * {@link Execution}. The owner ends it exactly once, with {@link #complete} or {@link #fail}, from any
 * thread; until then the key is in progress, and if the owner never ends it (the process died) the
 * lease runs out and a retry takes over, as after a crash inside {@code execute}.
 */
public interface OpenExecution extends Execution {
    /**
     * Stores {@code response} as the key's answer, as {@link Idem#execute} does with an operation's
     * return value: the storage policy and {@link Idem#maxResponseBytes()} apply, and a response the
     * policy does not store gives the key back.
     *
     * @throws LeaseLostException   if another owner took over first; nothing was stored
     * @throws StoreException       if the store failed
     * @throws IllegalStateException if this execution was already completed or failed
     */
    Outcome complete(StoredResponse response);

    /**
     * Gives the key back after the operation failed: released when no phase finished, so a retry
     * runs again, else its lease ended so a retry resumes after the last checkpoint. Store failures
     * are attached to {@code failure} as suppressed exceptions; the caller reports {@code failure}.
     *
     * @throws IllegalStateException if this execution was already completed or failed
     */
    void fail(Throwable failure);
}
