package dev.idem.docs.samples;

/** The downstream the samples charge: an API that takes an idempotency key, like the demo's card gateway. */
@FunctionalInterface
public interface CardGateway {
    /** Charges {@code amount} once per {@code idempotencyKey}; returns the charge's id. */
    String charge(String idempotencyKey, long amount) throws Exception;
}
