package dev.idem.servlet;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Operation;
import dev.idem.Outcome;
import dev.idem.Scope;
import java.util.Objects;

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
 * <li>Return {@link Outcome.Executed} when the handler ran, with {@code stored} telling whether its
 *     response is now durable for replay; {@link Outcome.Replayed}, {@link Outcome.InProgress} or
 *     {@link Outcome.Mismatch} when it did not.</li>
 * <li>Make the response durable <em>before</em> returning: the filter sends the handler's response
 *     as soon as this method returns, and a client that saw it may rely on every retry replaying it.</li>
 * <li>Let the handler's unchecked exceptions propagate as they are; its checked ones
 *     ({@code IOException}, {@code ServletException}) may arrive wrapped in an unchecked exception whose
 *     cause they are — the filter rethrows the handler's own to the container. {@code handler} also
 *     throws an unchecked exception of the filter's own when its {@link StoragePolicy} (or the
 *     handler's {@code Idempotent-Store: no}) declines the response: treat it as any exception — give
 *     the key back (or roll back) and let it propagate as it is; the filter then sends the response.</li>
 * <li>Let a store failure propagate as a {@link dev.idem.StoreException} (or with one in its cause
 *     chain), and a lost lease as a {@link dev.idem.LeaseLostException}: the filter answers them 503
 *     and 409 (see {@link IdempotencyFilter}).</li>
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

    /** The filter's default: {@link Idem#execute}, with its leases, phases and in-flight policy. */
    static RequestRunner of(Idem idem) {
        Objects.requireNonNull(idem, "idem is null");
        return idem::execute;
    }
}
