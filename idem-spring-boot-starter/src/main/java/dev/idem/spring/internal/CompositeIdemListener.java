package dev.idem.spring.internal;

import dev.idem.IdemListener;
import dev.idem.Scope;
import java.util.List;
import java.util.function.Consumer;

/** Every {@link IdemListener} bean of the application as one; a failing listener does not stop the others. */
public final class CompositeIdemListener implements IdemListener {
    private static final System.Logger LOG = System.getLogger("dev.idem.spring");

    private final List<IdemListener> listeners;

    private CompositeIdemListener(List<IdemListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /** No listener: the no-op; one: itself; more: a composite. */
    public static IdemListener of(List<IdemListener> listeners) {
        if (listeners.isEmpty()) {
            return IdemListener.noop();
        }
        return listeners.size() == 1 ? listeners.get(0) : new CompositeIdemListener(listeners);
    }

    private void each(Consumer<IdemListener> event) {
        for (IdemListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "idem listener " + listener.getClass().getName() + " failed; ignored", e);
            }
        }
    }

    @Override
    public void claimed(Scope scope, int attempt) {
        each(l -> l.claimed(scope, attempt));
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        each(l -> l.takeover(scope, attempt));
    }

    @Override
    public void replayed(Scope scope) {
        each(l -> l.replayed(scope));
    }

    @Override
    public void inProgress(Scope scope) {
        each(l -> l.inProgress(scope));
    }

    @Override
    public void mismatch(Scope scope) {
        each(l -> l.mismatch(scope));
    }

    @Override
    public void expired(Scope scope) {
        each(l -> l.expired(scope));
    }

    @Override
    public void leaseLost(Scope scope) {
        each(l -> l.leaseLost(scope));
    }

    @Override
    public void phase(Scope scope, String phase, boolean fromCheckpoint) {
        each(l -> l.phase(scope, phase, fromCheckpoint));
    }

    @Override
    public void purged(int count) {
        each(l -> l.purged(count));
    }

    @Override
    public String toString() {
        return "CompositeIdemListener" + listeners;
    }
}
