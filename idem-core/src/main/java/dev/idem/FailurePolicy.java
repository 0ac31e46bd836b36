package dev.idem;

import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Which responses are stored for replay. A response that is not stored, like an exception from the
 * operation, gives the key back: the record is deleted if no phase finished (a retry re-executes),
 * or its lease is ended at once if one did (a retry resumes after that phase). Exceptions never
 * store anything.
 *
 * <p>The default stores every status below 500: a 4xx is the answer to that request and replays as
 * such; a 5xx means the server failed and a retry should run again.
 */
public final class FailurePolicy {
    private static final FailurePolicy DEFAULTS = new FailurePolicy(status -> status < 500, "status < 500");

    private final IntPredicate storesStatus;
    private final String description;

    private FailurePolicy(IntPredicate storesStatus, String description) {
        this.storesStatus = storesStatus;
        this.description = description;
    }

    public static FailurePolicy defaults() {
        return DEFAULTS;
    }

    /** Stores the responses whose status matches; {@code description} is for diagnostics. */
    public static FailurePolicy storeStatuses(IntPredicate storesStatus, String description) {
        Objects.requireNonNull(storesStatus, "storesStatus is null");
        Objects.requireNonNull(description, "description is null");
        return new FailurePolicy(storesStatus, description);
    }

    public boolean stores(StoredResponse response) {
        return storesStatus.test(response.status());
    }

    @Override
    public String toString() {
        return "FailurePolicy[store when " + description + "]";
    }
}
