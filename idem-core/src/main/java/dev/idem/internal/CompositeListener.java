package dev.idem.internal;

import dev.idem.IdemListener;
import dev.idem.Scope;
import dev.idem.spi.ListenerCalls;
import java.util.List;
import java.util.function.Consumer;

/** Several listeners as one ({@link IdemListener#all}); one that throws does not keep the event from the others. */
public final class CompositeListener implements IdemListener {
    private final List<IdemListener> listeners;

    private CompositeListener(List<IdemListener> listeners) {
        this.listeners = listeners;
    }

    /** No listener: the no-op; one: itself; more: a composite. */
    public static IdemListener of(List<? extends IdemListener> listeners) {
        List<IdemListener> copy = List.copyOf(listeners);
        if (copy.isEmpty()) {
            return IdemListener.noop();
        }
        return copy.size() == 1 ? copy.get(0) : new CompositeListener(copy);
    }

    private void each(String event, Consumer<IdemListener> call) {
        for (IdemListener listener : listeners) {
            ListenerCalls.run(event, () -> call.accept(listener));
        }
    }

    @Override
    public void claimed(Scope scope, int attempt) {
        each("claimed", l -> l.claimed(scope, attempt));
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        each("takeover", l -> l.takeover(scope, attempt));
    }

    @Override
    public void replayed(Scope scope) {
        each("replayed", l -> l.replayed(scope));
    }

    @Override
    public void inProgress(Scope scope) {
        each("inProgress", l -> l.inProgress(scope));
    }

    @Override
    public void mismatch(Scope scope) {
        each("mismatch", l -> l.mismatch(scope));
    }

    @Override
    public void expired(Scope scope) {
        each("expired", l -> l.expired(scope));
    }

    @Override
    public void leaseLost(Scope scope) {
        each("leaseLost", l -> l.leaseLost(scope));
    }

    @Override
    public void phase(Scope scope, String phase, boolean fromCheckpoint) {
        each("phase", l -> l.phase(scope, phase, fromCheckpoint));
    }

    @Override
    public void purged(int count) {
        each("purged", l -> l.purged(count));
    }

    @Override
    public String toString() {
        return "IdemListener.all" + listeners;
    }
}
