package dev.idem.servlet;

import dev.idem.Idem;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link IdempotencyFilter} does with one request whose method it covers: pass it through,
 * or run it under an idempotency key that is required or optional — with the filter's {@link Idem},
 * a per-endpoint variant of it (lease, retention, in-flight and failure policy; see
 * {@link Idem#toBuilder()}), or a {@link RequestRunner} of its own; and, optionally, with its own
 * {@link StoragePolicy} instead of the filter's.
 *
 * <p>Immutable; {@link #withIdem(Idem)}, {@link #withRunner(RequestRunner)} and
 * {@link #withStoragePolicy(StoragePolicy)} return a copy.
 */
public final class RoutePolicy {
    private static final RoutePolicy REQUIRED = new RoutePolicy(true, true, null, null, null);
    private static final RoutePolicy OPTIONAL = new RoutePolicy(true, false, null, null, null);
    private static final RoutePolicy NOT_COVERED = new RoutePolicy(false, false, null, null, null);

    private final boolean covered;
    private final boolean keyRequired;
    private final Idem idem;
    private final RequestRunner runner;
    private final StoragePolicy storagePolicy;

    private RoutePolicy(boolean covered, boolean keyRequired, Idem idem, RequestRunner runner, StoragePolicy storagePolicy) {
        this.covered = covered;
        this.keyRequired = keyRequired;
        this.idem = idem;
        this.runner = runner;
        this.storagePolicy = storagePolicy;
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
     * filter's store (derive it with {@code filterIdem.toBuilder()}). Replaces a runner set before.
     *
     * @throws IllegalStateException on {@link #notCovered()}, which runs nothing
     */
    public RoutePolicy withIdem(Idem idem) {
        Objects.requireNonNull(idem, "idem is null");
        requireCovered();
        return new RoutePolicy(covered, keyRequired, idem, null, storagePolicy);
    }

    /**
     * This policy with its own way of running a request (see {@link RequestRunner} for the contract),
     * instead of the filter's {@link Idem}. Replaces an engine set with {@link #withIdem} before.
     *
     * @throws IllegalStateException on {@link #notCovered()}, which runs nothing
     */
    public RoutePolicy withRunner(RequestRunner runner) {
        Objects.requireNonNull(runner, "runner is null");
        requireCovered();
        return new RoutePolicy(covered, keyRequired, null, runner, storagePolicy);
    }

    /**
     * This policy with its own rule for which responses are stored, instead of the filter's
     * ({@link IdempotencyFilter.Builder#storagePolicy}). Kept by {@link #withIdem} and {@link #withRunner}.
     *
     * @throws IllegalStateException on {@link #notCovered()}, which stores nothing
     */
    public RoutePolicy withStoragePolicy(StoragePolicy storagePolicy) {
        Objects.requireNonNull(storagePolicy, "storagePolicy is null");
        requireCovered();
        return new RoutePolicy(covered, keyRequired, idem, runner, storagePolicy);
    }

    private void requireCovered() {
        if (!covered) {
            throw new IllegalStateException("a route that is not covered runs no Idem; use required() or optional()");
        }
    }

    public boolean covered() {
        return covered;
    }

    public boolean keyRequired() {
        return keyRequired;
    }

    /** The per-endpoint engine, if one was set; else the filter's is used (unless a {@link #runner()} is set). */
    public Optional<Idem> idem() {
        return Optional.ofNullable(idem);
    }

    /** The per-endpoint runner, if one was set; it then runs the request instead of any {@link Idem}. */
    public Optional<RequestRunner> runner() {
        return Optional.ofNullable(runner);
    }

    /** The per-endpoint storage policy, if one was set; else the filter's is used. */
    public Optional<StoragePolicy> storagePolicy() {
        return Optional.ofNullable(storagePolicy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RoutePolicy other && covered == other.covered && keyRequired == other.keyRequired
                && Objects.equals(idem, other.idem) && Objects.equals(runner, other.runner)
                && Objects.equals(storagePolicy, other.storagePolicy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(covered, keyRequired, idem, runner, storagePolicy);
    }

    @Override
    public String toString() {
        if (!covered) {
            return "RoutePolicy[not covered]";
        }
        return "RoutePolicy[key " + (keyRequired ? "required" : "optional") + (idem == null ? "" : ", " + idem)
                + (runner == null ? "" : ", " + runner) + (storagePolicy == null ? "" : ", " + storagePolicy) + "]";
    }
}
