package dev.idem;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** Records listener events as text ("claimed 1", "replayed", …) and can signal the first of one kind. */
class RecordingListener implements IdemListener {
    private final List<String> events = new ArrayList<>();
    private final List<Scope> scopes = new ArrayList<>();
    final CountDownLatch conflictSeen = new CountDownLatch(1);
    final CountDownLatch leaseLostSeen = new CountDownLatch(1);

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    /** The scope passed with each event, in the same order as {@link #events()}. */
    synchronized List<Scope> scopes() {
        return new ArrayList<>(scopes); // a copy; purged events carry no scope (null)
    }

    private synchronized void record(String event, Scope scope) {
        events.add(event);
        scopes.add(scope);
    }

    @Override
    public void claimed(Scope scope, int attempt) {
        record("claimed " + attempt, scope);
    }

    @Override
    public void takeover(Scope scope, int attempt) {
        record("takeover " + attempt, scope);
    }

    @Override
    public void replayed(Scope scope) {
        record("replayed", scope);
    }

    @Override
    public void inProgress(Scope scope) {
        record("conflict", scope);
        conflictSeen.countDown();
    }

    @Override
    public void mismatch(Scope scope) {
        record("mismatch", scope);
    }

    @Override
    public void expired(Scope scope) {
        record("expired", scope);
    }

    @Override
    public void leaseLost(Scope scope) {
        record("leaseLost", scope);
        leaseLostSeen.countDown();
    }

    @Override
    public void purged(int count) {
        record("purged " + count, null);
    }
}
