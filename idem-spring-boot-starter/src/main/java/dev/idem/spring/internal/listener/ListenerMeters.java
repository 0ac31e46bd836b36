package dev.idem.spring.internal.listener;

/**
 * Where the outcome of each {@code @IdempotentListener} delivery is counted: the starter supplies one
 * on Micrometer when the application has a registry; without it nothing is counted.
 */
@FunctionalInterface
public interface ListenerMeters {

    /** Counts nothing. */
    ListenerMeters NONE = (consumer, outcome) -> { };

    /**
     * One delivery (a record, a message, or a batch) ended.
     *
     * @param consumer the inbox consumer name (bounded: one per listener method)
     * @param outcome  {@code processed}, {@code duplicate}, {@code quarantined} or {@code failed}
     */
    void delivered(String consumer, String outcome);
}
