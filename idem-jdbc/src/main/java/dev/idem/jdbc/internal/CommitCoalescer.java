package dev.idem.jdbc.internal;

import dev.idem.spi.Arguments;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Natural batching (group commit) of one kind of write: callers that arrive while another caller's
 * write is in flight queue up, and when it ends the first of them takes the whole queue (at most
 * {@code maxBatch} entries) to the database in one transaction with one commit. There is no timer: a
 * caller that finds nothing in flight goes straight through, alone, on the ordinary path.
 *
 * <p>Each caller waits for the answer to its own entry. Two entries with the same key never share a
 * batch: a key already in the forming batch stays queued for the next one, so a batch decides each key
 * exactly as running the entries one after the other would. A batch answers each entry with its value,
 * its own failure, or "alone": the caller then runs its entry by itself on the ordinary path (the
 * batch could not settle it, or the batch's transaction failed for a reason that may be one entry's
 * own bad row).
 *
 * @param <E> an entry: what one caller asks for
 * @param <R> the answer to one entry
 */
public final class CommitCoalescer<E, R> {
    /** Runs one entry alone: the ordinary, uncoalesced path. */
    @FunctionalInterface
    public interface Single<E, R> {
        R run(E entry);
    }

    /** Runs two or more entries with distinct keys in one transaction; one answer per entry, in order. */
    @FunctionalInterface
    public interface Batch<E, R> {
        List<Answer<R>> run(List<E> entries);
    }

    /** The answer a batch gives one entry. */
    public static final class Answer<R> {
        private static final Answer<?> ALONE = new Answer<>(null, null, true);
        private final R value;
        private final RuntimeException failure;
        private final boolean alone;

        private Answer(R value, RuntimeException failure, boolean alone) {
            this.value = value;
            this.failure = failure;
            this.alone = alone;
        }

        /** The entry is settled with {@code value}. */
        public static <R> Answer<R> of(R value) {
            return new Answer<>(value, null, false);
        }

        /** The entry failed with {@code failure}, which its caller gets (e.g. a fenced write). */
        public static <R> Answer<R> failed(RuntimeException failure) {
            return new Answer<>(null, Objects.requireNonNull(failure, "failure"), false);
        }

        /** The batch did not settle the entry: its caller runs it alone. */
        @SuppressWarnings("unchecked")
        public static <R> Answer<R> alone() {
            return (Answer<R>) ALONE;
        }
    }

    private final int maxBatch;
    private final Function<E, ?> keyOf;
    private final Single<E, R> single;
    private final Batch<E, R> batch;
    private final ReentrantLock lock = new ReentrantLock();
    /** Callers waiting for a batch, oldest first; guarded by {@link #lock}. */
    private final ArrayDeque<Waiter<E, R>> queue = new ArrayDeque<>();
    /** Writes in flight, counting a new leader waking up to send the next one; guarded by {@link #lock}. */
    private int inFlight;
    private final int maxInFlight;

    /**
     * @param maxBatch entries per batch at most (2 or more)
     * @param maxInFlight writes (single or batched) in flight at once before callers queue (1 or more)
     * @param keyOf    an entry's key: entries with equal keys never share a batch
     * @param single   the ordinary path, for a caller alone and for an entry a batch answered "alone"
     * @param batch    two or more entries in one transaction
     */
    public CommitCoalescer(int maxBatch, int maxInFlight, Function<E, ?> keyOf, Single<E, R> single, Batch<E, R> batch) {
        Arguments.atLeast("maxBatch", maxBatch, 2);
        Arguments.atLeast("maxInFlight", maxInFlight, 1);
        this.maxBatch = maxBatch;
        this.maxInFlight = maxInFlight;
        this.keyOf = Objects.requireNonNull(keyOf, "keyOf");
        this.single = Objects.requireNonNull(single, "single");
        this.batch = Objects.requireNonNull(batch, "batch");
    }

    /** Runs {@code entry}, alone or in a batch with concurrent callers' entries, and returns its own answer. */
    public R submit(E entry) {
        Waiter<E, R> me = new Waiter<>(entry, keyOf.apply(entry));
        boolean lead;
        lock.lock();
        try {
            lead = inFlight < maxInFlight;
            if (lead) {
                inFlight++;
            } else {
                queue.addLast(me);
            }
        } finally {
            lock.unlock();
        }
        List<Waiter<E, R>> mine = lead ? List.of(me) : me.awaitTurn() ? formBatch(me) : null;
        if (mine != null) {
            lead(mine);
        }
        Answer<R> answer = me.answer;
        if (answer.alone) {
            return single.run(entry);
        }
        if (answer.failure != null) {
            throw answer.failure;
        }
        return answer.value;
    }

    /** Callers queued for the next batch now (for tests and diagnostics). */
    public int waiting() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** The new leader's batch: itself, then queued entries oldest first whose keys are not in it yet. */
    private List<Waiter<E, R>> formBatch(Waiter<E, R> leader) {
        List<Waiter<E, R>> out = new ArrayList<>();
        out.add(leader);
        Set<Object> keys = new HashSet<>();
        keys.add(leader.key);
        lock.lock();
        try {
            for (Iterator<Waiter<E, R>> it = queue.iterator(); it.hasNext() && out.size() < maxBatch; ) {
                Waiter<E, R> next = it.next();
                if (keys.add(next.key)) {
                    it.remove();
                    out.add(next);
                }
            }
        } finally {
            lock.unlock();
        }
        return out;
    }

    /** Sends {@code group}, answers every entry in it, then hands the turn to the oldest waiter. */
    private void lead(List<Waiter<E, R>> group) {
        try {
            if (group.size() == 1) {
                Waiter<E, R> only = group.get(0);
                only.answer = runAlone(only.entry);
            } else {
                List<E> entries = new ArrayList<>(group.size());
                group.forEach(w -> entries.add(w.entry));
                List<Answer<R>> answers = batch.run(entries);
                if (answers.size() != group.size()) {
                    throw new IllegalStateException("a batch of " + group.size() + " answered " + answers.size());
                }
                for (int i = 0; i < group.size(); i++) {
                    group.get(i).answer = Objects.requireNonNull(answers.get(i), "answer");
                }
            }
        } catch (RuntimeException | Error e) {
            // Unreachable for a batch that keeps its contract; every caller must still get an answer,
            // and the one that cannot be trusted here is "run it yourself".
            for (Waiter<E, R> w : group) {
                if (w.answer == null) {
                    w.answer = group.size() == 1 ? Answer.failed(asRuntime(e)) : Answer.alone();
                }
            }
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            for (Waiter<E, R> w : group) {
                w.wake();
            }
            handOver();
        }
    }

    private Answer<R> runAlone(E entry) {
        try {
            return Answer.of(single.run(entry));
        } catch (RuntimeException e) {
            return Answer.failed(e);
        }
    }

    private static RuntimeException asRuntime(Throwable e) {
        return e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }

    /** The oldest waiter leads next; with nobody waiting, the next caller goes straight through. */
    private void handOver() {
        Waiter<E, R> next;
        lock.lock();
        try {
            next = queue.pollFirst();
            if (next == null) {
                inFlight--;
                return;
            }
        } finally {
            lock.unlock();
        }
        next.lead();
    }

    /** One caller's entry and, once given, its answer or its turn to lead. */
    private static final class Waiter<E, R> {
        final E entry;
        final Object key;
        /** Written by the leader before {@link #wake}, read by the owner after; the monitor orders them. */
        Answer<R> answer;
        private boolean leads;
        private boolean woken;

        Waiter(E entry, Object key) {
            this.entry = entry;
            this.key = key;
        }

        synchronized void wake() {
            woken = true;
            notifyAll();
        }

        synchronized void lead() {
            leads = true;
            notifyAll();
        }

        /**
         * Waits until the entry is answered (false) or it is this caller's turn to lead (true). Not
         * interruptible: the entry may already be on its way to the database, and its caller must learn
         * the durable answer; an interrupt is kept for the caller to see afterwards.
         */
        synchronized boolean awaitTurn() {
            boolean interrupted = false;
            while (!woken && !leads) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return !woken;
        }
    }
}
