package dev.idem.micrometer;

import dev.idem.IdemListener;
import dev.idem.Scope;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts idem's events in Micrometer. The Spring Boot starters register one when the application has a
 * {@link MeterRegistry} bean and hand it to the {@code Idem} and sweeper they build; the Quarkus
 * extension does the same when the application has {@code quarkus-micrometer}. An application that
 * builds its own {@code Idem} passes one to {@code Idem.Builder.listener} (and {@code Sweeper.Builder.listener}) itself.
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>name</th><th>tags</th><th>counts</th></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=acquired}, {@code operation}</td><td>calls that got a fresh key and ran the operation</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=takeover}, {@code operation}</td><td>calls that took a key over after its owner's lease ran out, and ran (resumed) it</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=replayed}, {@code operation}</td><td>calls answered with a stored response</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=in_progress}, {@code operation}</td><td>calls that found the key in progress (409, or waiting)</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=mismatch}, {@code operation}</td><td>calls that reused a key for another request (422)</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=expired}, {@code operation}</td><td>calls whose key's response had expired, answered from its tombstone (410)</td></tr>
 * <tr><td>{@value #LEASE_LOST}</td><td></td><td>writes refused because another owner holds the key now</td></tr>
 * <tr><td>{@value #PURGED}</td><td></td><td>expired records deleted by the sweeper</td></tr>
 * </table>
 *
 * <p>{@value #OPERATION_TAG} is the operation part of the scope (what follows its first space): for
 * a starter's {@code @Idempotent} endpoint the HTTP method and the handler's URL pattern
 * ({@code POST /orders/{id}/pay}), for an {@code @IdempotentMethod} its scope name
 * ({@code com.acme.Payments#charge}). So replays are countable per route, and the cardinality is
 * bounded by the application's endpoints and methods: the principal, the raw path and the key never
 * become a tag; Jakarta REST's (and so Quarkus') names the resource method's route template
 * ({@code POST /orders/{id}}) too. (A custom {@code ScopeResolver} must keep the operation part
 * bounded in the same way.)
 *
 * <p>{@code acquired} and {@code takeover} are disjoint, so the sum over outcomes counts claims with a
 * final answer, except that a call that waits ({@code in-flight=wait}) counts {@code in_progress} when
 * it starts waiting and then the outcome it ends with.
 */
public final class MicrometerIdemListener implements IdemListener {
    /** Claims by outcome and operation. */
    public static final String CLAIMS = "idem.claims";
    /** Writes refused by a stale fencing token. */
    public static final String LEASE_LOST = "idem.lease.lost";
    /** Records deleted by the sweeper. */
    public static final String PURGED = "idem.purged";
    /** The outcome tag of {@value #CLAIMS}. */
    public static final String OUTCOME_TAG = "outcome";
    /** The operation tag of {@value #CLAIMS}: the endpoint's method and route pattern, or the method's scope name. */
    public static final String OPERATION_TAG = "operation";

    private final MeterRegistry registry;
    private final Map<String, Counter> claims = new ConcurrentHashMap<>();
    private final Counter leaseLost;
    private final Counter purged;

    /** Registers {@value #LEASE_LOST} and {@value #PURGED} on {@code registry} now, and each {@value #CLAIMS} counter at its first event. */
    public MicrometerIdemListener(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry is null");
        this.leaseLost = Counter.builder(LEASE_LOST)
                .description("Writes refused because another owner took the key over")
                .register(registry);
        this.purged = Counter.builder(PURGED)
                .description("Expired idempotency records deleted by the sweeper")
                .baseUnit("records")
                .register(registry);
    }

    private void count(String outcome, Scope scope) {
        String operation = scope.operation();
        claims.computeIfAbsent(outcome + ' ' + operation, k -> Counter.builder(CLAIMS)
                .description("Idempotency key claims by outcome and operation")
                .tag(OUTCOME_TAG, outcome)
                .tag(OPERATION_TAG, operation)
                .register(registry)).increment();
    }

    @Override
    public void claimed(Scope scope, int attempt) {
        if (attempt == 1) {
            count("acquired", scope); // a later attempt is reported by takeover()
        }
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        count("takeover", scope);
    }

    @Override
    public void replayed(Scope scope) {
        count("replayed", scope);
    }

    @Override
    public void inProgress(Scope scope) {
        count("in_progress", scope);
    }

    @Override
    public void mismatch(Scope scope) {
        count("mismatch", scope);
    }

    @Override
    public void expired(Scope scope) {
        count("expired", scope);
    }

    @Override
    public void leaseLost(Scope scope) {
        leaseLost.increment();
    }

    @Override
    public void purged(int count) {
        purged.increment(count);
    }

    @Override
    public String toString() {
        return "MicrometerIdemListener[" + CLAIMS + ", " + LEASE_LOST + ", " + PURGED + "]";
    }
}
