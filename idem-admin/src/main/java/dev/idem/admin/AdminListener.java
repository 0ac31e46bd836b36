package dev.idem.admin;

/**
 * Told of every action an operator asked for through {@link IdemAdmin}, refused ones included: for
 * an audit trail and a meter ({@code idem.admin.actions} in the Spring Boot starter). idem logs each
 * action as well (logger {@code dev.idem.admin}). Must not throw; what it throws is logged and ignored.
 */
@FunctionalInterface
public interface AdminListener {

    /**
     * @param action  {@code release}, {@code replay}, {@code replay-all} or {@code drop}
     * @param actor   who asked (the request's principal), or {@code anonymous}
     * @param outcome what happened, e.g. {@code RELEASED}, {@code LEASE_LIVE}, {@code PROCESSED}, {@code refused}
     */
    void acted(String action, String actor, String outcome);

    /** Does nothing. */
    AdminListener NONE = (action, actor, outcome) -> { };
}
