package dev.idem.jakarta.rest.internal;

import dev.idem.OpenExecution;
import dev.idem.Outcome;
import dev.idem.StoredResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One covered request between its filters: the execution it owns and what was captured of its
 * response. The execution is ended exactly once, by whichever step gets there first ({@link #complete}
 * or {@link #fail}); later calls do nothing.
 */
final class Exchange {
    /** The covered request on this thread, for {@link UnhandledFailureMapper}, which sees no request (resources are synchronous). */
    static final ThreadLocal<Exchange> CURRENT = new ThreadLocal<>();

    final OpenExecution execution;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Set by the response filter when the entity is still to be written: the writer interceptor completes. */
    int status;
    Map<String, List<String>> headers;
    boolean storageDeclined;
    boolean awaitingEntity;

    Exchange(OpenExecution execution) {
        this.execution = execution;
    }

    boolean ended() {
        return ended.get();
    }

    /** Completes with the captured status and headers and {@code body}; null if it had ended already. */
    Outcome complete(byte[] body) {
        if (!ended.compareAndSet(false, true)) {
            return null;
        }
        StoredResponse response = StoredResponse.of(status, headers, body);
        return execution.complete(storageDeclined ? dev.idem.StoragePolicy.declined(response) : response);
    }

    /** Gives the key back after {@code failure}, unless the execution had ended already. */
    void fail(Throwable failure) {
        if (ended.compareAndSet(false, true)) {
            execution.fail(failure);
        }
    }
}
