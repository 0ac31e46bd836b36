package dev.idem.opentelemetry;

import dev.idem.IdemListener;
import dev.idem.Scope;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * Records idem's engine events as events of the current span (the HTTP server span of the request,
 * the span around a service method, a consumer's span): where a trace shows a request, it shows
 * whether it ran, was replayed, waited, took over, resumed phases or lost its lease.
 *
 * <table>
 * <caption>Span events</caption>
 * <tr><th>event</th><th>attributes</th></tr>
 * <tr><td>{@code idem.claim}</td><td>{@code idem.operation}, {@code idem.outcome} ({@code acquired} or {@code takeover}), {@code idem.attempt}</td></tr>
 * <tr><td>{@code idem.claim}</td><td>{@code idem.operation}, {@code idem.outcome} ({@code replayed}, {@code in_progress}, {@code mismatch} or {@code expired})</td></tr>
 * <tr><td>{@code idem.phase}</td><td>{@code idem.operation}, {@code idem.phase}, {@code idem.phase.from_checkpoint}</td></tr>
 * <tr><td>{@code idem.lease_lost}</td><td>{@code idem.operation}</td></tr>
 * </table>
 *
 * <p>{@code idem.operation} is the scope's {@linkplain Scope#operation() operation part} (the route
 * or the method), never the principal, the key's value or a body. Without a current span (no
 * OpenTelemetry SDK, or no span started) the events go nowhere, at the cost of a lookup.
 */
public final class OpenTelemetryIdemListener implements IdemListener {
    /** The scope's operation part. */
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("idem.operation");
    /** What the claim found or did. */
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("idem.outcome");
    /** 1 for a first run, more after takeovers. */
    public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("idem.attempt");
    /** A phase's name, as the operation gave it. */
    public static final AttributeKey<String> PHASE = AttributeKey.stringKey("idem.phase");
    /** Whether the phase's result came from an earlier attempt's checkpoint. */
    public static final AttributeKey<Boolean> FROM_CHECKPOINT = AttributeKey.booleanKey("idem.phase.from_checkpoint");
    /** The event of a claim's answer. */
    public static final String CLAIM_EVENT = "idem.claim";
    /** The event of a finished (or restored) phase. */
    public static final String PHASE_EVENT = "idem.phase";
    /** The event of a write refused because another owner holds the key. */
    public static final String LEASE_LOST_EVENT = "idem.lease_lost";

    /** A listener that adds its events to whichever span is current when the engine reports them. */
    public OpenTelemetryIdemListener() {}

    @Override
    public void claimed(Scope scope, int attempt) {
        if (attempt == 1) { // a later attempt is reported by takeover()
            claim(scope, "acquired", attempt);
        }
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        claim(scope, "takeover", attempt);
    }

    @Override
    public void replayed(Scope scope) {
        claim(scope, "replayed", 0);
    }

    @Override
    public void inProgress(Scope scope) {
        claim(scope, "in_progress", 0);
    }

    @Override
    public void mismatch(Scope scope) {
        claim(scope, "mismatch", 0);
    }

    @Override
    public void expired(Scope scope) {
        claim(scope, "expired", 0);
    }

    @Override
    public void phase(Scope scope, String phase, boolean fromCheckpoint) {
        Span.current().addEvent(PHASE_EVENT, Attributes.of(OPERATION, scope.operation(), PHASE, phase, FROM_CHECKPOINT, fromCheckpoint));
    }

    @Override
    public void leaseLost(Scope scope) {
        Span.current().addEvent(LEASE_LOST_EVENT, Attributes.of(OPERATION, scope.operation()));
    }

    private static void claim(Scope scope, String outcome, int attempt) {
        Span span = Span.current();
        if (!span.isRecording()) {
            return;
        }
        span.addEvent(CLAIM_EVENT, attempt > 0
                ? Attributes.of(OPERATION, scope.operation(), OUTCOME, outcome, ATTEMPT, (long) attempt)
                : Attributes.of(OPERATION, scope.operation(), OUTCOME, outcome));
    }

    @Override
    public String toString() {
        return "OpenTelemetryIdemListener[events on the current span]";
    }
}
