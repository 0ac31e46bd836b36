package dev.idem.servlet;

import dev.idem.StoredResponse;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Which of a covered handler's responses the {@link IdempotencyFilter} stores for replay. A stored
 * response completes the key: every retry with it gets that response back for the retention. A
 * response that is not stored is still sent to the caller, but the key is given back — deleted, so a
 * retry runs the handler again, or, if a phase finished, its lease ended, so a retry resumes after
 * that phase.
 *
 * <p>The {@linkplain #defaults() default} stores every status except those that say "not now"
 * rather than "this is the answer": {@code 408 Request Timeout}, {@code 409 Conflict},
 * {@code 425 Too Early}, {@code 429 Too Many Requests} and every {@code 5xx}. Replaying a one-off 429
 * or 409 for the whole retention would turn a transient refusal into a permanent one.
 *
 * <p>Nothing is stored when the handler did not finish (it threw, or the key was not acquired). A
 * handler declines storage for one response with the {@value IdempotencyFilter#STORE_HEADER} response
 * header (see {@link IdempotencyFilter#STORE_HEADER}), whatever this policy says. The engine's own
 * {@link dev.idem.FailurePolicy} applies after this one: a response is stored only when both store it
 * (its default declines every 5xx, so it never contradicts the default here; to store a 5xx, widen
 * both).
 *
 * <p>Set globally with {@link IdempotencyFilter.Builder#storagePolicy} and per route with
 * {@link RoutePolicy#withStoragePolicy}. Immutable and thread-safe.
 */
public final class StoragePolicy {
    /** The statuses the default does not store. */
    public static final List<String> DEFAULT_NOT_STORED = List.of("408", "409", "425", "429", "5xx");

    private static final StoragePolicy DEFAULTS = notStoring(DEFAULT_NOT_STORED);
    private static final StoragePolicy ALL = new StoragePolicy(response -> true, "every status");

    private final Predicate<StoredResponse> stores;
    private final String description;

    private StoragePolicy(Predicate<StoredResponse> stores, String description) {
        this.stores = stores;
        this.description = description;
    }

    /** Stores every status but 408, 409, 425, 429 and 5xx ({@link #DEFAULT_NOT_STORED}). */
    public static StoragePolicy defaults() {
        return DEFAULTS;
    }

    /** Stores every status (the engine's {@link dev.idem.FailurePolicy} still declines what it declines). */
    public static StoragePolicy storingAll() {
        return ALL;
    }

    /**
     * Stores every status but the listed ones. Each entry is a status ({@code "429"}, 100–599) or a
     * class of them ({@code "5xx"}, {@code "1xx"}–{@code "5xx"}); surrounding blanks are ignored.
     * No entry stores every status.
     *
     * @throws IllegalArgumentException naming the first entry that is neither
     */
    public static StoragePolicy notStoring(Collection<String> statuses) {
        Objects.requireNonNull(statuses, "statuses is null");
        BitSet notStored = new BitSet(600);
        List<String> names = new ArrayList<>();
        for (String entry : statuses) {
            String status = entry == null ? "" : entry.trim().toLowerCase(Locale.ROOT);
            if (status.matches("[1-5]xx")) {
                int base = (status.charAt(0) - '0') * 100;
                notStored.set(base, base + 100);
            } else if (status.matches("[1-5][0-9][0-9]")) {
                notStored.set(Integer.parseInt(status));
            } else {
                throw new IllegalArgumentException("a status not to store must be a status code from 100 to 599"
                        + " or a class such as 5xx, was '" + entry + "'");
            }
            names.add(status);
        }
        if (names.isEmpty()) {
            return ALL;
        }
        return new StoragePolicy(response -> !notStored.get(response.status()), "not " + String.join(", ", names));
    }

    /** As {@link #notStoring(Collection)}. */
    public static StoragePolicy notStoring(String... statuses) {
        Objects.requireNonNull(statuses, "statuses is null");
        return notStoring(List.of(statuses));
    }

    /**
     * Stores the responses {@code stores} accepts; it sees the response as it would be stored (status,
     * stored headers, body). {@code description} is for diagnostics.
     */
    public static StoragePolicy of(Predicate<StoredResponse> stores, String description) {
        Objects.requireNonNull(stores, "stores is null");
        Objects.requireNonNull(description, "description is null");
        return new StoragePolicy(stores, description);
    }

    /** Whether {@code response} is stored (completing the key) rather than the key given back. */
    public boolean stores(StoredResponse response) {
        return stores.test(response);
    }

    @Override
    public String toString() {
        return "StoragePolicy[store " + description + "]";
    }
}
