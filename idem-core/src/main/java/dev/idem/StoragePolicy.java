package dev.idem;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

/**
 * Which responses an engine stores for replay: the one decision, made by the engine on what the
 * operation returned ({@link Idem.Builder#storagePolicy}). A stored response completes the key: every
 * retry with it gets that response back for the retention. A response that is not stored is still the
 * call's result ({@link Outcome.Executed} with {@code stored == false}), but the key is given back —
 * deleted, so a retry runs the operation again, or, if a phase finished, its lease ended, so a retry
 * resumes after that phase. An exception from the operation never stores anything.
 *
 * <p>The {@linkplain #defaults() default} stores every status except those that say "not now" rather
 * than "this is the answer": {@code 408 Request Timeout}, {@code 409 Conflict}, {@code 425 Too Early},
 * {@code 429 Too Many Requests} and every {@code 5xx}. Replaying a one-off 429 or 409 for the whole
 * retention would turn a transient refusal into a permanent one; a 5xx means the server failed and a
 * retry should run again.
 *
 * <p>Whatever the policy, a response the operation returned {@linkplain #declined declined} (marked
 * {@value #DECLINE_HEADER}{@code : no}) is not stored: the operation's own refusal, returned with its
 * answer. The policy sees the response as it would be stored ({@link Idem#storable}). Immutable and
 * thread-safe. See the project's {@code docs/engine.md} and {@code docs/http.md}.
 */
public final class StoragePolicy {
    /** The statuses the default does not store. */
    public static final List<String> DEFAULT_NOT_STORED = List.of("408", "409", "425", "429", "5xx");
    /**
     * Marks a response its operation declines to store (value {@code no}); no policy stores such a
     * response. The HTTP filter's handlers set it as a response header; it never reaches a client.
     */
    public static final String DECLINE_HEADER = "Idempotent-Store";

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

    /** Stores every status. */
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

    /** Stores the responses whose status matches; {@code description} is for diagnostics. */
    public static StoragePolicy storeStatuses(IntPredicate storesStatus, String description) {
        Objects.requireNonNull(storesStatus, "storesStatus is null");
        Objects.requireNonNull(description, "description is null");
        return new StoragePolicy(response -> storesStatus.test(response.status()), "when " + description);
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

    /**
     * {@code response} marked {@value #DECLINE_HEADER}{@code : no}: what an operation returns to have
     * its answer given to the caller but not stored, whatever the engine's policy.
     */
    public static StoredResponse declined(StoredResponse response) {
        Objects.requireNonNull(response, "response is null");
        if (isDeclined(response)) {
            return response;
        }
        Map<String, List<String>> headers = new LinkedHashMap<>(response.headers());
        headers.keySet().removeIf(DECLINE_HEADER::equalsIgnoreCase);
        headers.put(DECLINE_HEADER, List.of("no"));
        return StoredResponse.of(response.status(), headers, response.body());
    }

    /** Whether {@code response} carries its operation's refusal ({@link #declined}). */
    public static boolean isDeclined(StoredResponse response) {
        for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
            if (DECLINE_HEADER.equalsIgnoreCase(header.getKey())) {
                for (String value : header.getValue()) {
                    if ("no".equalsIgnoreCase(value.trim())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether {@code response} is stored (completing the key) rather than the key given back. */
    public boolean stores(StoredResponse response) {
        return !isDeclined(response) && stores.test(response);
    }

    @Override
    public String toString() {
        return "StoragePolicy[store " + description + "]";
    }
}
