package dev.idem.servlet;

import dev.idem.Idem;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link IdempotencyFilter} does with one request whose method it covers: pass it through,
 * or run it under an idempotency key that is required or optional, with the filter's {@link Idem}
 * or a per-endpoint variant of it (lease, retention, in-flight and failure policy; see
 * {@link Idem#toBuilder()}).
 *
 * <p>Immutable; {@link #withIdem(Idem)} returns a copy.
 */
public final class RoutePolicy {
    private static final RoutePolicy REQUIRED = new RoutePolicy(true, true, null);
    private static final RoutePolicy OPTIONAL = new RoutePolicy(true, false, null);
    private static final RoutePolicy NOT_COVERED = new RoutePolicy(false, false, null);

    private final boolean covered;
    private final boolean keyRequired;
    private final Idem idem;

    private RoutePolicy(boolean covered, boolean keyRequired, Idem idem) {
        this.covered = covered;
        this.keyRequired = keyRequired;
        this.idem = idem;
    }

    /** Covered; a request without a key is answered 400 ({@code urn:idem:problem:key-missing}). The default. */
    public static RoutePolicy required() {
        return REQUIRED;
    }

    /** Covered when a key is sent; a request without one passes through without idempotency. */
    public static RoutePolicy optional() {
        return OPTIONAL;
    }

    /** Passed through untouched: the key header, if any, is ignored and the body is not read. */
    public static RoutePolicy notCovered() {
        return NOT_COVERED;
    }

    /**
     * This policy with a per-endpoint engine instead of the filter's. The variant should share the
     * filter's store (derive it with {@code filterIdem.toBuilder()}).
     *
     * @throws IllegalStateException on {@link #notCovered()}, which runs nothing
     */
    public RoutePolicy withIdem(Idem idem) {
        Objects.requireNonNull(idem, "idem is null");
        if (!covered) {
            throw new IllegalStateException("a route that is not covered runs no Idem; use required() or optional()");
        }
        return new RoutePolicy(covered, keyRequired, idem);
    }

    public boolean covered() {
        return covered;
    }

    public boolean keyRequired() {
        return keyRequired;
    }

    /** The per-endpoint engine, if one was set; else the filter's is used. */
    public Optional<Idem> idem() {
        return Optional.ofNullable(idem);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RoutePolicy other && covered == other.covered && keyRequired == other.keyRequired
                && Objects.equals(idem, other.idem);
    }

    @Override
    public int hashCode() {
        return Objects.hash(covered, keyRequired, idem);
    }

    @Override
    public String toString() {
        if (!covered) {
            return "RoutePolicy[not covered]";
        }
        return "RoutePolicy[key " + (keyRequired ? "required" : "optional") + (idem == null ? "" : ", " + idem) + "]";
    }
}
