package dev.idem.servlet;

import dev.idem.Idem;
import dev.idem.OperationRegistry;
import dev.idem.StoragePolicy;
import dev.idem.http.StoredRequest;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link IdempotencyFilter} does with one request whose method it covers: pass it through,
 * or run it under an idempotency key that is required or optional — with the filter's {@link Idem},
 * a per-endpoint variant of it (lease, retention, in-flight and storage policy; see
 * {@link Idem#toBuilder()}), or a {@link RequestRunner} of its own; and, optionally, with its own
 * {@link StoragePolicy}: the storage policy of the engine that runs the route (one decision, the
 * engine's; see {@link #withStoragePolicy}).
 *
 * <p>A route may opt in to completion ({@link #withCompletion}): its request is stored with the
 * claim, so that a {@link dev.idem.Completer} finishes it inside the application when its client never
 * comes back.
 *
 * <p>Immutable; {@link #withIdem(Idem)}, {@link #withRunner(RequestRunner)},
 * {@link #withStoragePolicy(StoragePolicy)} and {@link #withCompletion} return a copy.
 */
public final class RoutePolicy {
    private static final RoutePolicy REQUIRED = new RoutePolicy(true, true, null, null, null, null);
    private static final RoutePolicy OPTIONAL = new RoutePolicy(true, false, null, null, null, null);
    private static final RoutePolicy NOT_COVERED = new RoutePolicy(false, false, null, null, null, null);

    private final boolean covered;
    private final boolean keyRequired;
    private final Idem idem;
    private final RequestRunner runner;
    private final StoragePolicy storagePolicy;
    private final Completion completion;

    private RoutePolicy(boolean covered, boolean keyRequired, Idem idem, RequestRunner runner, StoragePolicy storagePolicy,
                        Completion completion) {
        this.covered = covered;
        this.keyRequired = keyRequired;
        this.idem = idem;
        this.runner = runner;
        this.storagePolicy = storagePolicy;
        this.completion = completion;
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
        return new RoutePolicy(covered, keyRequired, storagePolicy == null ? idem : withPolicy(idem, storagePolicy), null, storagePolicy,
                completion);
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
        if (completion != null) {
            throw new IllegalStateException("a route with completion runs through Idem.execute, which stores its request with the"
                    + " claim; it takes no RequestRunner of its own");
        }
        return new RoutePolicy(covered, keyRequired, null, storagePolicy == null ? runner : runner.withStoragePolicy(storagePolicy),
                storagePolicy, null);
    }

    /**
     * This policy with its own rule for which responses are stored, instead of the filter's
     * ({@link IdempotencyFilter.Builder#storagePolicy}): it becomes the storage policy of the engine
     * that runs the route — the route's {@link #idem()} (a variant of it, made now), its
     * {@link #runner()} ({@link RequestRunner#withStoragePolicy}), or else a variant of the filter's
     * engine. Kept by {@link #withIdem} and {@link #withRunner}.
     *
     * @throws IllegalStateException         on {@link #notCovered()}, which stores nothing
     * @throws UnsupportedOperationException if the route's runner does not take a storage policy
     */
    public RoutePolicy withStoragePolicy(StoragePolicy storagePolicy) {
        Objects.requireNonNull(storagePolicy, "storagePolicy is null");
        requireCovered();
        return new RoutePolicy(covered, keyRequired, idem == null ? null : withPolicy(idem, storagePolicy),
                runner == null ? null : runner.withStoragePolicy(storagePolicy), storagePolicy, completion);
    }

    /**
     * This policy with completion: the filter stores the request ({@link StoredRequest}: method, path
     * and query, the headers {@link StoredRequest#KEPT_HEADERS}, the body) as the input of the
     * operation {@code operationName} of {@code operations}, with the claim, and runs the handler as
     * usual; a {@link dev.idem.Completer} with that registry later finishes a record whose client never
     * came back by running the registered operation — normally {@link ServletCompletion}, which
     * dispatches the stored request inside the application. The stored request may hold personal data
     * (see the project's {@code docs/completer.md}). The request body is then capped at
     * {@link StoredRequest#MAX_BODY_BYTES} as well as the filter's limit.
     *
     * @throws IllegalArgumentException if {@code operationName} is not registered in {@code operations}
     * @throws IllegalStateException    on {@link #notCovered()}, and on a policy with a {@link #runner()}
     *                                  (completion runs through {@link Idem#execute})
     */
    public RoutePolicy withCompletion(OperationRegistry operations, String operationName) {
        return withCompletion(operations, operationName, StoredRequest.KEPT_HEADERS);
    }

    /**
     * {@link #withCompletion(OperationRegistry, String)}, storing the values of {@code keptHeaders}
     * (HTTP tokens, matched case-insensitively) instead of {@link StoredRequest#KEPT_HEADERS}: list
     * every header the handler reads. Never list a credential (Authorization, a cookie): it would be
     * stored with the record.
     */
    public RoutePolicy withCompletion(OperationRegistry operations, String operationName, List<String> keptHeaders) {
        Objects.requireNonNull(operations, "operations is null");
        Objects.requireNonNull(operationName, "operationName is null");
        Objects.requireNonNull(keptHeaders, "keptHeaders is null");
        requireCovered();
        if (runner != null) {
            throw new IllegalStateException("a route with a RequestRunner of its own cannot have completion, which runs through"
                    + " Idem.execute to store the request with the claim");
        }
        if (!operations.contains(operationName)) {
            throw new IllegalArgumentException("no operation named '" + operationName + "' is registered; registered: " + operations.names());
        }
        for (String header : keptHeaders) {
            IdempotencyFilter.Builder.token("keptHeaders entry", header);
        }
        return new RoutePolicy(covered, keyRequired, idem, null, storagePolicy, new Completion(operations, operationName, List.copyOf(keptHeaders)));
    }

    /** A route's completion: the registry, the operation its stored requests run as, and the headers stored. */
    public record Completion(OperationRegistry operations, String operationName, List<String> keptHeaders) {
    }

    private static Idem withPolicy(Idem idem, StoragePolicy storagePolicy) {
        return idem.storagePolicy() == storagePolicy ? idem : idem.toBuilder().storagePolicy(storagePolicy).build();
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

    /**
     * The per-endpoint engine, if one was set (with the route's {@link #storagePolicy()}, if one was
     * set); else the filter's is used (unless a {@link #runner()} is set).
     */
    public Optional<Idem> idem() {
        return Optional.ofNullable(idem);
    }

    /** The per-endpoint runner, if one was set; it then runs the request instead of any {@link Idem}. */
    public Optional<RequestRunner> runner() {
        return Optional.ofNullable(runner);
    }

    /** The route's completion, if it opted in with {@link #withCompletion}. */
    public Optional<Completion> completion() {
        return Optional.ofNullable(completion);
    }

    /** The per-endpoint storage policy, if one was set; else the route's engine's (by default the filter's). */
    public Optional<StoragePolicy> storagePolicy() {
        return Optional.ofNullable(storagePolicy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RoutePolicy other && covered == other.covered && keyRequired == other.keyRequired
                && Objects.equals(idem, other.idem) && Objects.equals(runner, other.runner)
                && Objects.equals(storagePolicy, other.storagePolicy) && Objects.equals(completion, other.completion);
    }

    @Override
    public int hashCode() {
        return Objects.hash(covered, keyRequired, idem, runner, storagePolicy, completion);
    }

    @Override
    public String toString() {
        if (!covered) {
            return "RoutePolicy[not covered]";
        }
        return "RoutePolicy[key " + (keyRequired ? "required" : "optional") + (idem == null ? "" : ", " + idem)
                + (runner == null ? "" : ", " + runner) + (storagePolicy == null ? "" : ", " + storagePolicy)
                + (completion == null ? "" : ", completion " + completion.operationName()) + "]";
    }
}
