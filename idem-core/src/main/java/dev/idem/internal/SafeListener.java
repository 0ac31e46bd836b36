package dev.idem.internal;

import dev.idem.IdemListener;
import dev.idem.Scope;
import dev.idem.spi.ListenerCalls;

/** The engine's listener, each event called through {@link ListenerCalls}: observability must not change outcomes. */
public final class SafeListener implements IdemListener {
    private final IdemListener delegate;

    public SafeListener(IdemListener delegate) {
        this.delegate = delegate;
    }

    private static void guard(String event, Runnable call) {
        ListenerCalls.run(event, call);
    }

    @Override
    public void claimed(Scope scope, int attempt) {
        guard("claimed", () -> delegate.claimed(scope, attempt));
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        guard("takeover", () -> delegate.takeover(scope, attempt));
    }

    @Override
    public void replayed(Scope scope) {
        guard("replayed", () -> delegate.replayed(scope));
    }

    @Override
    public void inProgress(Scope scope) {
        guard("inProgress", () -> delegate.inProgress(scope));
    }

    @Override
    public void mismatch(Scope scope) {
        guard("mismatch", () -> delegate.mismatch(scope));
    }

    @Override
    public void expired(Scope scope) {
        guard("expired", () -> delegate.expired(scope));
    }

    @Override
    public void leaseLost(Scope scope) {
        guard("leaseLost", () -> delegate.leaseLost(scope));
    }

    @Override
    public void phase(Scope scope, String phase, boolean fromCheckpoint) {
        guard("phase", () -> delegate.phase(scope, phase, fromCheckpoint));
    }

    @Override
    public void purged(int count) {
        guard("purged", () -> delegate.purged(count));
    }
}
