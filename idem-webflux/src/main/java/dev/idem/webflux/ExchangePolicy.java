package dev.idem.webflux;

import dev.idem.Idem;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link IdempotencyWebFilter} does with one exchange of a covered route: pass it through,
 * or run it under an idempotency key that is required or optional — with the filter's {@link Idem} or
 * a per-endpoint variant of it (lease, retention, in-flight and storage policy; derive it with
 * {@code filterIdem.toBuilder()} so that it shares the store). The reactive counterpart of the
 * Servlet filter's {@code RoutePolicy}, decided per exchange by an {@link ExchangePolicyResolver}.
 *
 * <p>Immutable; {@link #withIdem(Idem)} returns a copy.
 */
public final class ExchangePolicy {
    private static final ExchangePolicy REQUIRED = new ExchangePolicy(true, true, null);
    private static final ExchangePolicy OPTIONAL = new ExchangePolicy(true, false, null);
    private static final ExchangePolicy NOT_COVERED = new ExchangePolicy(false, false, null);

    private final boolean covered;
    private final boolean keyRequired;
    private final Idem idem;

    private ExchangePolicy(boolean covered, boolean keyRequired, Idem idem) {
        this.covered = covered;
        this.keyRequired = keyRequired;
        this.idem = idem;
    }

    /** Covered; an exchange without a key is answered 400 ({@code urn:idem:problem:key-missing}). */
    public static ExchangePolicy required() {
        return REQUIRED;
    }

    /** Covered when a key is sent; an exchange without one passes through without idempotency. */
    public static ExchangePolicy optional() {
        return OPTIONAL;
    }

    /** Passed through untouched: the key header, if any, is ignored and the body is not read. */
    public static ExchangePolicy notCovered() {
        return NOT_COVERED;
    }

    /**
     * This policy with a per-endpoint engine instead of the filter's.
     *
     * @throws IllegalStateException on {@link #notCovered()}, which runs nothing
     */
    public ExchangePolicy withIdem(Idem idem) {
        Objects.requireNonNull(idem, "idem is null");
        if (!covered) {
            throw new IllegalStateException("an exchange that is not covered runs no Idem; use required() or optional()");
        }
        return new ExchangePolicy(true, keyRequired, idem);
    }

    public boolean covered() {
        return covered;
    }

    public boolean keyRequired() {
        return keyRequired;
    }

    /** The per-endpoint engine, if one was set; else the filter's runs the exchange. */
    public Optional<Idem> idem() {
        return Optional.ofNullable(idem);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExchangePolicy other && covered == other.covered && keyRequired == other.keyRequired
                && Objects.equals(idem, other.idem);
    }

    @Override
    public int hashCode() {
        return Objects.hash(covered, keyRequired, idem);
    }

    @Override
    public String toString() {
        if (!covered) {
            return "ExchangePolicy[not covered]";
        }
        return "ExchangePolicy[key " + (keyRequired ? "required" : "optional") + (idem == null ? "" : ", " + idem) + "]";
    }
}
