package dev.idem.spring.internal.listener;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The failures the advice rethrew for a message the inbox has not settled (not quarantined, not
 * processed), so that a container's error handler can tell them from other failures: when its
 * retries run out, such a message must be delivered again, never skipped, until the inbox
 * quarantines it. Held weakly: a failure the container forgot is gone with it.
 */
public final class UnsettledFailures {
    private static final Set<Throwable> FAILURES = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private UnsettledFailures() {
    }

    /** Notes {@code failure} (and its cause) as a message's failure the inbox has not settled; returns it. */
    static Throwable remember(Throwable failure) {
        FAILURES.add(failure);
        if (failure.getCause() != null) {
            FAILURES.add(failure.getCause());
        }
        return failure;
    }

    /** Whether {@code failure} or one of its causes is a failure the advice rethrew for a message the inbox has not settled. */
    public static boolean contains(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (FAILURES.contains(t)) {
                return true;
            }
        }
        return false;
    }
}
