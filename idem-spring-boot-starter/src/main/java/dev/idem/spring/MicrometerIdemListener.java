package dev.idem.spring;

import dev.idem.IdemListener;
import dev.idem.Scope;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Counts idem's events in Micrometer. The starter registers one when the application has a
 * {@link MeterRegistry} bean and hands it to the {@code Idem} and sweeper it builds (an application
 * that defines its own {@code Idem} passes it to {@code Idem.Builder.listener} itself).
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>name</th><th>tags</th><th>counts</th></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=acquired}</td><td>calls that got a fresh key and ran the operation</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=takeover}</td><td>calls that took a key over after its owner's lease ran out, and ran (resumed) it</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=replayed}</td><td>calls answered with a stored response</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=conflict}</td><td>calls that found the key in progress (409, or waiting)</td></tr>
 * <tr><td>{@value #CLAIMS}</td><td>{@code outcome=mismatch}</td><td>calls that reused a key for another request (422)</td></tr>
 * <tr><td>{@value #LEASE_LOST}</td><td></td><td>writes refused because another owner holds the key now</td></tr>
 * <tr><td>{@value #PURGED}</td><td></td><td>expired records deleted by the sweeper</td></tr>
 * </table>
 *
 * {@code acquired} and {@code takeover} are disjoint, so the sum over outcomes counts claims with a
 * final answer, except that a call that waits ({@code in-flight=wait}) counts {@code conflict} when
 * it starts waiting and then the outcome it ends with. Tags carry no principal, route or key, so
 * the meters' cardinality is fixed.
 */
public final class MicrometerIdemListener implements IdemListener {
    /** Claims by outcome. */
    public static final String CLAIMS = "idem.claims";
    /** Writes refused by a stale fencing token. */
    public static final String LEASE_LOST = "idem.lease.lost";
    /** Records deleted by the sweeper. */
    public static final String PURGED = "idem.purged";
    /** The tag of {@value #CLAIMS}. */
    public static final String OUTCOME_TAG = "outcome";

    private final Counter acquired;
    private final Counter takeover;
    private final Counter replayed;
    private final Counter conflict;
    private final Counter mismatch;
    private final Counter leaseLost;
    private final Counter purged;

    public MicrometerIdemListener(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry is null");
        this.acquired = claims(registry, "acquired");
        this.takeover = claims(registry, "takeover");
        this.replayed = claims(registry, "replayed");
        this.conflict = claims(registry, "conflict");
        this.mismatch = claims(registry, "mismatch");
        this.leaseLost = Counter.builder(LEASE_LOST)
                .description("Writes refused because another owner took the key over")
                .register(registry);
        this.purged = Counter.builder(PURGED)
                .description("Expired idempotency records deleted by the sweeper")
                .baseUnit("records")
                .register(registry);
    }

    private static Counter claims(MeterRegistry registry, String outcome) {
        return Counter.builder(CLAIMS)
                .description("Idempotency key claims by outcome")
                .tag(OUTCOME_TAG, outcome)
                .register(registry);
    }

    @Override
    public void claimed(Scope scope, int attempt) {
        if (attempt == 1) {
            acquired.increment(); // a later attempt is reported by takeover()
        }
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        takeover.increment();
    }

    @Override
    public void replayed(Scope scope) {
        replayed.increment();
    }

    @Override
    public void conflict(Scope scope) {
        conflict.increment();
    }

    @Override
    public void mismatch(Scope scope) {
        mismatch.increment();
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
