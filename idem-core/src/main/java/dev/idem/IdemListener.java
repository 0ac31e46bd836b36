package dev.idem;

import dev.idem.internal.CompositeListener;
import java.util.List;

/**
 * Hooks for metrics and tracing. Every method defaults to doing nothing; an exception thrown by a
 * listener is logged and otherwise ignored, so a faulty listener cannot break an execution. Events
 * carry the scope, never the key's value.
 */
public interface IdemListener {

    /** This call acquired the key and will run the operation. */
    default void claimed(Scope scope, int attempt) {
    }

    /** This call took over a key whose owner's lease ran out. */
    default void takeover(Scope scope, int attempt) {
    }

    /** A stored response was replayed. */
    default void replayed(Scope scope) {
    }

    /**
     * The key was in progress: another call held it (reported once per call that found it so, when
     * it answers {@link Outcome.InProgress} or starts waiting for the other call).
     */
    default void inProgress(Scope scope) {
    }

    /** The key was reused with another fingerprint. */
    default void mismatch(Scope scope) {
    }

    /** The key's response had expired and its tombstone answered {@link Outcome.Expired}. */
    default void expired(Scope scope) {
    }

    /** A write was rejected because another owner holds the key now. */
    default void leaseLost(Scope scope) {
    }

    /**
     * A phase of the running operation returned: it ran and was checkpointed ({@code fromCheckpoint}
     * false), or an earlier attempt had finished it and its checkpointed result was returned (true).
     * {@code phase} is the name the operation gave it, not data of the request.
     */
    default void phase(Scope scope, String phase, boolean fromCheckpoint) {
    }

    /** The sweeper deleted {@code count} expired records. */
    default void purged(int count) {
    }

    static IdemListener noop() {
        return NoopListener.INSTANCE;
    }

    /**
     * {@code listeners} as one, each told of every event in order; what one throws is logged (as
     * {@link dev.idem.spi.ListenerCalls} does) and the others are still told. An empty list gives the
     * no-op, a single listener itself. For an engine with several listeners (meters and tracing).
     */
    static IdemListener all(List<? extends IdemListener> listeners) {
        return CompositeListener.of(listeners);
    }
}

final class NoopListener implements IdemListener {
    static final NoopListener INSTANCE = new NoopListener();

    private NoopListener() {
    }
}
