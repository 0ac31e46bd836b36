package dev.idem.servlet;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Operation;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoragePolicy;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the {@link IdempotencyFilter} runs one covered request once it has checked the key, read and
 * fingerprinted the body and resolved the scope: claim the key, run the handler at most once, and
 * answer as {@link Idem#execute} does. By default the filter runs every request through its
 * {@link Idem} ({@link #of(Idem)}); a route picks another runner with
 * {@link RoutePolicy#withRunner(RequestRunner)} — for example one that runs the claim, the handler's
 * database writes and the stored response in one transaction (the Spring starter's
 * {@code @Idempotent(transactional = true)}).
 *
 * <p>The contract, for a runner of one's own:
 * <ul>
 * <li>Call {@code handler} at most once, and only after this call holds the key. Pass the claim's
 *     {@link dev.idem.Execution} (the handler finds it with {@link IdempotencyFilter#execution}, to
 *     run phases), or {@code null} when the runner has none: then {@code execution} is empty.</li>
 * <li>Decide storage on what {@code handler} returns, with the engine's one rule
 *     ({@link Idem#toStore}): its {@link dev.idem.StoragePolicy} decides, and a response the handler
 *     declined ({@code Idempotent-Store: no}, {@link dev.idem.StoragePolicy#declined}) is never
 *     stored. Not stored: give the key back (or roll back) and return {@link Outcome.Executed} with
 *     {@code stored == false}; the filter sends the response all the same.</li>
 * <li>Return {@link Outcome.Executed} when the handler ran, with {@code stored} telling whether its
 *     response is now durable for replay; {@link Outcome.Replayed}, {@link Outcome.InProgress} or
 *     {@link Outcome.Mismatch} when it did not.</li>
 * <li>Make the response durable <em>before</em> returning: the filter sends the handler's response
 *     as soon as this method returns, and a client that saw it may rely on every retry replaying it.</li>
 * <li>Let the handler's unchecked exceptions propagate as they are, and its checked ones
 *     ({@code IOException}, {@code ServletException}) wrapped in a
 *     {@link dev.idem.OperationFailedException}, as {@link Idem#execute} does: the filter rethrows the
 *     handler's own to the container.</li>
 * <li>Let a store failure propagate as a {@link dev.idem.StoreException} (or with one in its cause
 *     chain), and a lost lease as a {@link dev.idem.LeaseLostException}: the filter answers them 503
 *     and 409 (see the project's {@code docs/http.md}).</li>
 * </ul>
 */
@FunctionalInterface
public interface RequestRunner {

    /**
     * Claims {@code key} under {@code scope} and runs {@code handler} if this call acquires it.
     *
     * @param handler runs the request's handler against a capturing response and returns what it
     *                captured (status, headers, body), to store
     */
    Outcome run(Scope scope, IdempotencyKey key, Fingerprint fingerprint, Operation handler);

    /**
     * This runner on a variant of its engine whose {@link dev.idem.StoragePolicy} is {@code policy}
     * (a route's {@link RoutePolicy#withStoragePolicy}); {@code this} when it already has that policy.
     * A runner of one's own that takes no policy keeps this default, which refuses.
     *
     * @throws UnsupportedOperationException if this runner cannot change its engine's storage policy
     */
    default RequestRunner withStoragePolicy(StoragePolicy policy) {
        throw new UnsupportedOperationException("the RequestRunner " + this + " takes no storage policy; set the policy"
                + " on the engine it runs on, or implement RequestRunner.withStoragePolicy");
    }

    /**
     * How long this runner's engine keeps a completed response, which the filter advertises in
     * {@code Idempotency-Key-Retention}; empty (the default) advertises the route's or the filter's engine's.
     */
    default Optional<Duration> retention() {
        return Optional.empty();
    }

    /** The filter's default: {@link Idem#execute}, with its leases, phases and in-flight policy. */
    static RequestRunner of(Idem idem) {
        return new EngineRunner(idem);
    }
}

/** {@link RequestRunner#of}: a request run by {@link Idem#execute}. */
record EngineRunner(Idem idem) implements RequestRunner {
    EngineRunner {
        Objects.requireNonNull(idem, "idem is null");
    }

    @Override
    public Outcome run(Scope scope, IdempotencyKey key, Fingerprint fingerprint, Operation handler) {
        return idem.execute(scope, key, fingerprint, handler);
    }

    @Override
    public Optional<Duration> retention() {
        return Optional.of(idem.retention());
    }

    @Override
    public RequestRunner withStoragePolicy(StoragePolicy policy) {
        Objects.requireNonNull(policy, "policy is null");
        return policy == idem.storagePolicy() ? this : new EngineRunner(idem.toBuilder().storagePolicy(policy).build());
    }
}
