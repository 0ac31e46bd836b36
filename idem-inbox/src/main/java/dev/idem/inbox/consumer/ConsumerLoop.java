package dev.idem.inbox.consumer;

import dev.idem.inbox.BrokerBatch;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.spi.ListenerCalls;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one consumer loop of every broker: fetch → usable message ids → the inbox batch in one
 * transaction ({@link BrokerBatch}) → each message answered after the commit (ack, redeliver,
 * quarantine) → a pause after a database failure → until {@link #close} or the subscription ends.
 * A {@link BrokerAdapter} speaks the broker's protocol; this class decides what is said and when,
 * reports to the {@link ConsumerListener}, and owns the thread, the pause and the shutdown.
 *
 * <p>Nothing is acknowledged before the database commit: a consumer that dies anywhere in a batch
 * leaves its messages unacknowledged, the broker redelivers them, and the inbox answers those
 * already committed {@code DUPLICATE}.
 *
 * @param <M> the broker client's message type
 */
public final class ConsumerLoop<M> {
    private static final System.Logger LOG = System.getLogger("dev.idem.inbox.consumer");

    private final Inbox inbox;
    private final MessageIdExtractor<? super M> messageIds;
    private final MessageHandler<M> handler;
    private final ConsumerListener<? super M> listener;
    private final Duration storeFailureBackoff;
    private final BrokerAdapter<M> adapter;
    private final String source;

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Object pause = new Object();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean running = true;
    private volatile boolean closing;
    private volatile String consumer;
    private volatile Thread thread;
    private volatile Throwable failure;

    ConsumerLoop(Inbox inbox, String consumer, MessageIdExtractor<? super M> messageIds, MessageHandler<M> handler,
                 ConsumerListener<? super M> listener, Duration storeFailureBackoff, BrokerAdapter<M> adapter, String source) {
        this.inbox = inbox;
        this.consumer = consumer;
        this.messageIds = messageIds;
        this.handler = handler;
        this.listener = listener;
        this.storeFailureBackoff = storeFailureBackoff;
        this.adapter = adapter;
        this.source = source;
    }

    /**
     * Fetches and processes until {@link #close} or until the adapter's fetch throws; then releases the
     * adapter and reports {@link ConsumerListener#stopped}. Rethrows what ended the loop otherwise.
     *
     * @throws IllegalStateException if this loop ran before
     */
    public void run() {
        begin();
        runBegun();
    }

    /** Runs {@link #run()} on a new daemon thread; what ends it otherwise than {@link #close} is logged. */
    public void start(String threadName) {
        begin();
        Thread t = new Thread(() -> {
            try {
                runBegun();
            } catch (Throwable e) {
                LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + " on " + source
                        + " stopped; its unacknowledged messages go back to the broker", e);
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }

    private void begin() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("this consumer ran already; build a new one");
        }
    }

    private void runBegun() {
        thread = Thread.currentThread();
        try {
            if (running) {
                loop();
            }
            end(null);
        } catch (RuntimeException | Error e) {
            end(e);
            throw e;
        } catch (Exception e) {
            end(e);
            throw new IllegalStateException("consumer " + consumer + " on " + source + " stopped", e);
        } finally {
            finished.countDown();
        }
    }

    /**
     * Stops the loop: wakes a blocked fetch and a pause, lets the batch in progress finish (and be
     * answered), and waits up to {@code timeout} for the loop to release the adapter.
     */
    public void close(Duration timeout) {
        closing = true;
        running = false;
        adapter.wakeup();
        synchronized (pause) {
            pause.notifyAll();
        }
        if (!started.get() || Thread.currentThread() == thread) {
            return;
        }
        try {
            if (!finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + " on " + source + " did not stop within " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the loop runs and was not asked to stop. */
    public boolean isRunning() {
        return running && started.get() && finished.getCount() > 0;
    }

    /** The inbox consumer name (once running, where the adapter chose it). */
    public String consumerName() {
        return consumer;
    }

    /** What ended the loop, if it ended with an exception. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** For an adapter whose acknowledgement the broker did not confirm: logs it and tells the listener. */
    public void ackFailed(M message, Exception failure) {
        LOG.log(System.Logger.Level.INFO, "consumer " + consumer + " on " + source + ": an acknowledgement was not confirmed ("
                + failure + "); the broker delivers the message again and the inbox answers DUPLICATE");
        ListenerCalls.run("ackFailed", () -> listener.ackFailed(consumer, message, failure));
    }

    /**
     * For an adapter that counts a failed attempt outside a batch (a message its client could not even
     * read): {@link Inbox#recordFailure} in a transaction of its own, reported to the listener.
     *
     * @param message what the listener gets; null if the client gave no message (e.g. it could not deserialize one)
     * @return {@code FAILED}, {@code QUARANTINED}, or {@code DUPLICATE} (processed before, nothing counted); null if the
     *         database failed (logged; nothing was counted)
     */
    public InboxOutcome countFailure(M message, InboxMessage quarantined, Throwable cause) {
        InboxOutcome outcome;
        try {
            outcome = inbox.recordFailure(consumer, quarantined, cause);
        } catch (RuntimeException e) {
            e.addSuppressed(cause);
            LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + " on " + source
                    + ": could not count a failed attempt; the message comes again", e);
            return null;
        }
        String id = quarantined.id();
        if (outcome.status() == InboxOutcome.Status.QUARANTINED) {
            ListenerCalls.run("quarantined", () -> listener.quarantined(consumer, message, id));
        } else if (outcome.status() == InboxOutcome.Status.DUPLICATE) {
            ListenerCalls.run("duplicate", () -> listener.duplicate(consumer, message, id));
        } else {
            ListenerCalls.run("failed", () -> listener.failed(consumer, message, id, outcome.attempts(), cause));
        }
        return outcome;
    }

    /** For an adapter: broker positions were committed (see {@link ConsumerListener#positionsCommitted}). */
    public void positionsCommitted(Map<String, Long> positions, boolean inDatabase) {
        ListenerCalls.run("positionsCommitted", () -> listener.positionsCommitted(consumer, positions, inDatabase));
    }

    /** For an adapter: the broker gave ({@code assigned} true) or took these sources. */
    public void assignment(Collection<String> sources, boolean assigned) {
        if (assigned) {
            ListenerCalls.run("assigned", () -> listener.assigned(consumer, sources));
        } else {
            ListenerCalls.run("revoked", () -> listener.revoked(consumer, sources));
        }
    }

    /** Messages refused for want of a usable message id so far. */
    public long refused() {
        return refused.get();
    }

    // ---- the loop ----------------------------------------------------------------------------------------

    private void loop() throws Exception {
        consumer = adapter.open(consumer);
        BrokerBatch<M> batches = new BrokerBatch<>(inbox, consumer, handler::handle);
        Answers answers = new Answers();
        while (running) {
            List<M> fetched = adapter.fetch();
            if (!fetched.isEmpty()) {
                batches.process(fetched, answers);
            }
            adapter.afterFetch();
        }
    }

    private void end(Throwable cause) {
        running = false;
        failure = cause;
        Throwable reported = closing ? null : cause;
        try {
            adapter.release(cause);
        } finally {
            ListenerCalls.run("stopped", () -> listener.stopped(consumer, reported));
        }
    }

    /** Waits out the store-failure backoff, or less if the loop is closed meanwhile. */
    private void pause() throws InterruptedException {
        long until = System.nanoTime() + storeFailureBackoff.toNanos();
        synchronized (pause) {
            long left;
            while (running && (left = until - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(pause, left);
            }
        }
    }

    /** The loop's answers to one batch: the listener hears of each outcome, the adapter tells the broker. */
    private final class Answers implements BrokerBatch.Broker<M> {

        @Override
        public String messageId(M message) {
            return messageIds.messageId(message);
        }

        @Override
        public byte[] body(M message) {
            return adapter.body(message);
        }

        @Override
        public Map<String, String> headers(M message) {
            return adapter.headers(message);
        }

        @Override
        public String missingIdHint() {
            return adapter.missingIdHint();
        }

        @Override
        public long deliveries(M message) {
            return adapter.deliveries(message);
        }

        @Override
        public void refuse(M message, String reason) throws Exception {
            String text = "consumer " + consumer + " refused " + adapter.describe(message) + ": " + reason + ". " + adapter.refusal();
            LOG.log(System.Logger.Level.WARNING, text);
            adapter.refuse(message, text);
            refused.incrementAndGet();
            ListenerCalls.run("refused", () -> listener.refused(consumer, message, text));
        }

        @Override
        public void storeFailed(List<M> messages, RuntimeException e) throws InterruptedException {
            // Nothing committed, nothing counted: give the database a moment, then let the broker redeliver.
            ListenerCalls.run("storeFailed", () -> listener.storeFailed(consumer, messages.size(), e));
            LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + " on " + source + ": the inbox failed (" + e + "); "
                    + messages.size() + " messages go back to the broker after " + storeFailureBackoff);
            LOG.log(System.Logger.Level.DEBUG, "the inbox's failure", e);
            pause();
        }

        @Override
        public void redeliverAll(List<M> messages) throws Exception {
            adapter.redeliverAll(messages);
        }

        @Override
        public void committed(List<M> messages) throws Exception {
            adapter.committed(messages);
        }

        @Override
        public void settle(M message, InboxOutcome outcome) throws Exception {
            String id = outcome.messageId();
            switch (outcome.status()) {
                case PROCESSED -> {
                    adapter.ack(message);
                    ListenerCalls.run("processed", () -> listener.processed(consumer, message, id));
                }
                case DUPLICATE -> {
                    adapter.ack(message);
                    ListenerCalls.run("duplicate", () -> listener.duplicate(consumer, message, id));
                }
                case QUARANTINED -> {
                    adapter.quarantined(message);
                    ListenerCalls.run("quarantined", () -> listener.quarantined(consumer, message, id));
                }
                case FAILED -> {
                    adapter.redeliver(message);
                    Throwable cause = outcome.failure().orElse(null);
                    ListenerCalls.run("failed", () -> listener.failed(consumer, message, id, outcome.attempts(), cause));
                }
                default -> throw new IllegalStateException("unknown outcome " + outcome);
            }
        }

        @Override
        public void ack(M message) throws Exception {
            adapter.ack(message);
        }

        @Override
        public void quarantined(M message) throws Exception {
            adapter.quarantined(message);
        }

        @Override
        public void redeliver(M message) throws Exception {
            adapter.redeliver(message);
        }

        @Override
        public void unattempted(M message) throws Exception {
            adapter.unattempted(message);
        }

        @Override
        public boolean ordered() {
            return adapter.ordered();
        }

        @Override
        public void positions(Connection connection, List<M> settled) throws SQLException {
            adapter.positions(connection, settled);
        }
    }
}
