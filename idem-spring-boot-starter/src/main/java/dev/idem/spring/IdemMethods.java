package dev.idem.spring;

import dev.idem.Execution;
import java.util.Optional;

/**
 * What an {@link IdempotentMethod} sees of its run: the engine's {@link Execution}, for phases and
 * downstream keys.
 *
 * <pre>{@code
 * @IdempotentMethod(key = "#order.id")
 * Receipt charge(Order order) throws Exception {
 *     Execution execution = IdemMethods.currentExecution().orElseThrow();
 *     String chargeId = execution.phase("charge", downstreamKey -> gateway.charge(downstreamKey, order.amount()));
 *     execution.phase("mail", downstreamKey -> mailer.send(order, chargeId));
 *     return new Receipt(chargeId);
 * }
 * }</pre>
 *
 * A phase that finished before a crash is not run again by the retry that takes the key over; it
 * returns the checkpointed result.
 */
public final class IdemMethods {
    private static final ThreadLocal<Execution> CURRENT = new ThreadLocal<>();

    private IdemMethods() {
    }

    /**
     * The execution of the innermost {@link IdempotentMethod} running on this thread, or empty outside
     * one (or in code it hands to other threads).
     */
    public static Optional<Execution> currentExecution() {
        return Optional.ofNullable(CURRENT.get());
    }

    /** Sets the current execution and returns the previous one, for the starter's interceptor. */
    static Execution enter(Execution execution) {
        Execution previous = CURRENT.get();
        CURRENT.set(execution);
        return previous;
    }

    /** Restores what {@link #enter} returned. */
    static void leave(Execution previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
