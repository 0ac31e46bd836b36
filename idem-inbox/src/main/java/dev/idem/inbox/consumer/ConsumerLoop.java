package dev.idem.inbox.consumer;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxHandler;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.spi.ListenerCalls;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one consumer loop of every broker, and the one seam a broker fills: this class owns the flow,
 * a broker's subclass overrides the hooks that speak its protocol (fetch, ack, redeliver, refuse, …).
 * The flow, per fetch:
 * <ol>
 * <li>{@link #fetch} a batch. Each message's id comes from the consumer's {@link MessageIdExtractor};
 *     a message without a usable id (none, empty, refused by the inbox, or an accessor that throws) is
 *     {@link #refuse refused} at once and gets no other call.</li>
 * <li>The others go to the inbox in <b>one</b> transaction ({@link Inbox#processBatch(String, List, InboxHandler, Inbox.BatchSteps)}),
 *     with the broker's {@link #positions} committing beside the claims and its {@link #deliveries}
 *     counting towards {@code maxAttempts}. The handler gets the first message of each new id.</li>
 * <li>If the database fails (nothing committed, nothing counted): the listener hears of it, a pause of
 *     {@code storeFailureBackoff}, then {@link #redeliverAll}. Nothing is acknowledged.</li>
 * <li>Otherwise, after the commit: {@link #committed} once, then per message exactly one of {@link #ack}
 *     (PROCESSED, DUPLICATE), {@link #quarantined} (QUARANTINED), {@link #redeliver} (FAILED) or, in an
 *     {@link #ordered} batch behind a failure, {@link #unattempted}; the listener hears each outcome.</li>
 * <li>{@link #afterFetch}, also after an empty fetch: bulk acknowledgements, offset commits.</li>
 * </ol>
 * A hook that throws ends the loop; what was not answered stays unacknowledged, the broker delivers it
 * again, and the inbox answers what already committed {@code DUPLICATE}: a consumer that dies anywhere
 * loses nothing and applies nothing twice. The loop ends on {@code close()} or when {@link #fetch}
 * throws, and then {@link #release}s the broker. {@link InboxConsumer} is the public face of a loop:
 * start, close, replay and the counters. See {@code docs/messaging.md}.
 *
 * <p>Every hook but {@link #subscribe} and {@link #wakeup} runs on the loop's thread, one at a time.
 *
 * @param <M> the broker client's message type
 */
public abstract class ConsumerLoop<M> {
    private static final System.Logger LOG = System.getLogger("dev.idem.inbox.consumer");

    private final Inbox inbox;
    private final MessageIdExtractor<? super M> messageIds;
    private final MessageHandler<M> handler;
    private final ConsumerListener<? super M> listener;
    private final Duration storeFailureBackoff;
    private final String source;

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Object pause = new Object();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private volatile boolean running = true;
    private volatile boolean closing;
    private volatile String consumer;
    private volatile Thread thread;
    private volatile Throwable failure;

    /**
     * @param settings the consumer's settings (inbox, name, extractor, handler, listener, tracing, backoff)
     * @param source   what the loop reads, as messages name it, e.g. {@code queue 'payments'}
     */
    protected ConsumerLoop(ConsumerBuilder<M, ?> settings, String source) {
        this(settings.inbox(), settings.consumerName(), settings.messageIds(), settings.handler(), settings.listener(),
                settings.storeFailureBackoff(), source, settings.tracing());
    }

    ConsumerLoop(Inbox inbox, String consumer, MessageIdExtractor<? super M> messageIds, MessageHandler<M> handler,
                 ConsumerListener<? super M> listener, Duration storeFailureBackoff, String source, ConsumerTracing tracing) {
        this.inbox = Objects.requireNonNull(inbox, "inbox is null");
        this.consumer = consumer;
        this.messageIds = Objects.requireNonNull(messageIds, "messageIds is null");
        this.handler = traced(handler, tracing, source);
        this.listener = listener;
        this.storeFailureBackoff = storeFailureBackoff;
        this.source = source;
    }

    /** The handler inside {@code tracing}, which sees each message's {@link #headers}; the handler itself without tracing. */
    private MessageHandler<M> traced(MessageHandler<M> handler, ConsumerTracing tracing, String source) {
        if (tracing == ConsumerTracing.NONE || handler == null) {
            return handler;
        }
        String configured = consumer;
        return (connection, message) -> tracing.around(configured, source, headers(message), () -> handler.handle(connection, message));
    }

    // ---- the hooks a broker fills -------------------------------------------------------------------------

    /** Binds to the broker when the consumer starts, on the caller's thread, so that a refusal fails the start. By default nothing. */
    protected void subscribe() throws IOException {
    }

    /**
     * On the loop's thread, before the first fetch (e.g. to make a client that must live on the thread
     * that polls it, and subscribe it).
     *
     * @param consumerName the configured inbox consumer name, or null if none was set
     * @return the inbox consumer name to use (e.g. Kafka's group id where none was set); by default the configured one
     */
    protected String open(String consumerName) throws Exception {
        return consumerName;
    }

    /**
     * The next batch, in delivery order, waiting a little if nothing has arrived; empty if nothing did.
     * Throws if the subscription is gone for good: that ends the loop.
     */
    protected abstract List<M> fetch() throws Exception;

    /** The payload the quarantine keeps; null counts as empty. */
    protected abstract byte[] body(M message);

    /** Headers the quarantine keeps with the payload, for inspection and replay; also what tracing reads. */
    protected abstract Map<String, String> headers(M message);

    /**
     * The broker's own count of this message's deliveries, this one included (JetStream's
     * {@code NumDelivered}; a quorum queue's {@code x-delivery-count} plus one); 0 if it keeps none, the
     * default. The inbox quarantines a failing message once this count or its own reaches
     * {@code maxAttempts}, so deliveries that died with their consumer still count.
     */
    protected long deliveries(M message) {
        return 0;
    }

    /** The message for a log line, e.g. "a delivery on queue 'payments' (delivery tag 7)"; never quotes the payload. */
    protected abstract String describe(M message);

    /** Completes "it has no message id: …": where an id was looked for, what the publisher should set. */
    protected abstract String missingIdHint();

    /** What {@link #refuse} does, for the log line and the listener, e.g. "It was terminated (term): …". */
    protected abstract String refusal();

    /**
     * The message has no usable id, so the inbox cannot deduplicate it: make sure the broker does not
     * deliver it again as it is (reject, terminate; or count it under an id of the broker's own, see
     * {@link #countFailure}). Called before the batch's transaction.
     *
     * @param reason the whole report (what, why, {@link #refusal}); never quotes the payload
     */
    protected abstract void refuse(M message, String reason) throws Exception;

    /** The batch's transaction committed, nothing answered yet. By default nothing. */
    protected void committed(List<M> messages) throws Exception {
    }

    /** PROCESSED or DUPLICATE, committed: the broker may forget the message. */
    protected abstract void ack(M message) throws Exception;

    /** QUARANTINED: the inbox keeps the message; the broker must not deliver it again. */
    protected abstract void quarantined(M message) throws Exception;

    /** FAILED: the attempt is counted; the broker delivers the message again. */
    protected abstract void redeliver(M message) throws Exception;

    /** The batch's transaction failed (the loop waited out the backoff): every message goes back. By default {@link #redeliver} each. */
    protected void redeliverAll(List<M> messages) throws Exception {
        for (M m : messages) {
            redeliver(m);
        }
    }

    /** An ordered batch's message left behind a failed or refused one: deliver it again, uncounted. By default {@link #redeliver}. */
    protected void unattempted(M message) throws Exception {
        redeliver(message);
    }

    /**
     * Whether a batch's order must hold (a Kafka partition): nothing overtakes a message that was refused
     * or failed, and the ones behind it are {@link #unattempted}. By default false.
     */
    protected boolean ordered() {
        return false;
    }

    /** Work that commits with the claims of {@code settled}: positions kept in the database. Runs last in each such transaction. By default nothing. */
    protected void positions(Connection connection, List<M> settled) throws SQLException {
    }

    /** After every fetch and its answers (also an empty one): bulk acknowledgements, offset commits. By default nothing. */
    protected void afterFetch() throws Exception {
    }

    /** Asked from any thread to stop: wake a blocked fetch, cancel the subscription. By default nothing. */
    protected void wakeup() {
    }

    /**
     * The loop ended; release what the broker holds (commit what was settled, unsubscribe, close).
     *
     * @param failure what ended the loop, or null after a close
     */
    protected abstract void release(Throwable failure);

    /** The broker's message rebuilt from a quarantined one, for {@link InboxConsumer#replay}. */
    protected abstract M rebuild(InboxMessage quarantined);

    // ---- what the loop offers a broker ------------------------------------------------------------------

    /** The inbox consumer name (once running, where {@link #open} chose it). */
    protected final String consumerName() {
        return consumer;
    }

    /** Counts {@code count} messages the broker confirmed as acknowledged. */
    protected final void acknowledged(long count) {
        acknowledged.addAndGet(count);
    }

    /** An acknowledgement the broker did not confirm: logs it and tells the listener; the inbox answers the redelivery DUPLICATE. */
    protected final void ackFailed(M message, Exception failure) {
        LOG.log(System.Logger.Level.INFO, "consumer " + consumer + " on " + source + ": an acknowledgement was not confirmed ("
                + failure + "); the broker delivers the message again and the inbox answers DUPLICATE");
        ListenerCalls.run("ackFailed", () -> listener.ackFailed(consumer, message, failure));
    }

    /**
     * Counts a failed attempt outside a batch (a message without a usable id that the broker cannot skip,
     * a message its client could not even read): {@link Inbox#recordFailure} in a transaction of its own,
     * reported to the listener.
     *
     * @param message what the listener gets; null if the client gave no message (e.g. it could not deserialize one)
     * @return {@code FAILED}, {@code QUARANTINED}, or {@code DUPLICATE} (processed before, nothing counted); null if the
     *         database failed (logged; nothing was counted)
     */
    protected final InboxOutcome countFailure(M message, InboxMessage quarantined, Throwable cause) {
        InboxOutcome outcome;
        try {
            outcome = inbox.recordFailure(consumer, quarantined, cause);
        } catch (RuntimeException e) {
            e.addSuppressed(cause);
            LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + " on " + source
                    + ": could not count a failed attempt; the message comes again", e);
            return null;
        }
        report(message, outcome);
        return outcome;
    }

    /** Broker positions were committed (see {@link ConsumerListener#positionsCommitted}). */
    protected final void positionsCommitted(Map<String, Long> positions, boolean inDatabase) {
        ListenerCalls.run("positionsCommitted", () -> listener.positionsCommitted(consumer, positions, inDatabase));
    }

    /** The broker gave ({@code assigned} true) or took these sources. */
    protected final void assignment(Collection<String> sources, boolean assigned) {
        if (assigned) {
            ListenerCalls.run("assigned", () -> listener.assigned(consumer, sources));
        } else {
            ListenerCalls.run("revoked", () -> listener.revoked(consumer, sources));
        }
    }

    // ---- lifecycle, for InboxConsumer ---------------------------------------------------------------------

    /**
     * Fetches and processes until {@link #close} or until {@link #fetch} throws; then releases the broker
     * and reports {@link ConsumerListener#stopped}. Rethrows what ended the loop otherwise.
     *
     * @throws IllegalStateException if this loop ran before
     */
    final void run() {
        begin();
        runBegun();
    }

    /** Runs {@link #run()} on a new daemon thread; what ends it otherwise than {@link #close} is logged. */
    final void start(String threadName) {
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

    /**
     * Stops the loop: wakes a blocked fetch and a pause, lets the batch in progress finish (and be
     * answered), and waits up to {@code timeout} for the loop to release the broker.
     */
    final void close(Duration timeout) {
        closing = true;
        running = false;
        wakeup();
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
    final boolean isRunning() {
        return running && started.get() && finished.getCount() > 0;
    }

    /** What the loop reads, as messages name it. */
    final String source() {
        return source;
    }

    /** Whether {@link #close} was called. */
    final boolean closed() {
        return closing;
    }

    /** What ended the loop, if it ended with an exception. */
    final Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** Messages refused for want of a usable message id so far. */
    final long refused() {
        return refused.get();
    }

    final long acknowledgedCount() {
        return acknowledged.get();
    }

    /** {@link Inbox#replay} with the broker's message rebuilt from the quarantined one. */
    final InboxOutcome replay(String messageId, MessageHandler<M> fixedHandler) {
        Objects.requireNonNull(fixedHandler, "handler is null");
        return inbox.replay(consumer, messageId, (c, m) -> fixedHandler.handle(c, rebuild(m)));
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

    private void loop() throws Exception {
        consumer = open(consumer);
        while (running) {
            List<M> fetched = fetch();
            if (!fetched.isEmpty()) {
                process(fetched);
            }
            afterFetch();
        }
    }

    private void end(Throwable cause) {
        running = false;
        failure = cause;
        Throwable reported = closing ? null : cause;
        try {
            release(cause);
        } finally {
            ListenerCalls.run("stopped", () -> listener.stopped(consumer, reported));
        }
    }

    // ---- one batch ------------------------------------------------------------------------------------------

    /** One fetched batch, as the class comment describes. */
    final void process(List<M> messages) throws Exception {
        Batch batch = new Batch(messages.size());
        List<M> behind = new ArrayList<>();
        boolean cut = false;
        for (M m : messages) {
            if (cut) {
                behind.add(m);
            } else if (!batch.add(m)) {
                cut = ordered();  // an ordered batch stops at the refused message
            }
        }
        if (!batch.claimed.isEmpty()) {
            batch.run();
        }
        for (M m : behind) {
            unattempted(m);
        }
    }

    /** The message as an inbox message, or null after {@link #refuse refusing} it with the reason. */
    private InboxMessage usable(M m) throws Exception {
        String reason;
        try {
            String id = messageIds.messageId(m);
            if (id != null && !id.isEmpty()) {
                byte[] body = body(m);
                return InboxMessage.of(id, body == null ? new byte[0] : body, headers(m));
            }
            reason = "it has no message id: " + missingIdHint();
        } catch (RuntimeException e) {
            reason = "its message id is unusable (" + e.getMessage() + ")";
        }
        String text = "consumer " + consumer + " refused " + describe(m) + ": " + reason + ". " + refusal();
        LOG.log(System.Logger.Level.WARNING, text);
        refuse(m, text);
        refused.incrementAndGet();
        ListenerCalls.run("refused", () -> listener.refused(consumer, m, text));
        return null;
    }

    private void storeFailed(List<M> messages, RuntimeException e) throws InterruptedException {
        // Nothing committed, nothing counted: give the database a moment, then let the broker redeliver.
        ListenerCalls.run("storeFailed", () -> listener.storeFailed(consumer, messages.size(), e));
        LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + " on " + source + ": the inbox failed (" + e + "); "
                + messages.size() + " messages go back to the broker after " + storeFailureBackoff);
        LOG.log(System.Logger.Level.DEBUG, "the inbox's failure", e);
        pause();
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

    private void settle(M message, InboxOutcome outcome) throws Exception {
        switch (outcome.status()) {
            case PROCESSED, DUPLICATE -> ack(message);
            case QUARANTINED -> quarantined(message);
            case FAILED -> redeliver(message);
            default -> throw new IllegalStateException("unknown outcome " + outcome);
        }
        report(message, outcome);
    }

    private void report(M message, InboxOutcome outcome) {
        String id = outcome.messageId();
        switch (outcome.status()) {
            case PROCESSED -> ListenerCalls.run("processed", () -> listener.processed(consumer, message, id));
            case DUPLICATE -> ListenerCalls.run("duplicate", () -> listener.duplicate(consumer, message, id));
            case QUARANTINED -> ListenerCalls.run("quarantined", () -> listener.quarantined(consumer, message, id));
            case FAILED -> {
                Throwable cause = outcome.failure().orElse(null);
                ListenerCalls.run("failed", () -> listener.failed(consumer, message, id, outcome.attempts(), cause));
            }
            default -> throw new IllegalStateException("unknown outcome " + outcome);
        }
    }

    /**
     * The claimed messages of one fetch and the inbox's part of their transactions: the positions of the
     * messages each transaction settles (all of them in the batch's own, the first of one id in a fallback's).
     */
    private final class Batch implements Inbox.BatchSteps {
        final List<M> claimed;
        final List<InboxMessage> messages;
        final Map<String, M> firstById = new HashMap<>();

        Batch(int size) {
            claimed = new ArrayList<>(size);
            messages = new ArrayList<>(size);
        }

        /** False if the message was refused. */
        boolean add(M m) throws Exception {
            InboxMessage message = usable(m);
            if (message == null) {
                return false;
            }
            messages.add(message);
            claimed.add(m);
            firstById.putIfAbsent(message.id(), m);
            return true;
        }

        void run() throws Exception {
            List<M> batch = Collections.unmodifiableList(claimed);
            List<InboxOutcome> outcomes;
            try {
                outcomes = inbox.processBatch(consumer, messages, (c, m) -> handler.handle(c, firstById.get(m.id())), this);
            } catch (RuntimeException e) {
                storeFailed(batch, e);
                redeliverAll(batch);
                return;
            }
            committed(batch);
            for (int i = 0; i < batch.size(); i++) {
                InboxOutcome outcome = outcomes.get(i);
                if (outcome == null) {
                    unattempted(batch.get(i));
                } else {
                    settle(batch.get(i), outcome);
                }
            }
        }

        @Override
        public void beforeCommit(Connection connection, List<String> settledIds) throws SQLException {
            if (settledIds.size() == firstById.size()) {
                positions(connection, Collections.unmodifiableList(claimed));
                return;
            }
            List<M> settled = new ArrayList<>(settledIds.size());
            for (String id : settledIds) {
                settled.add(firstById.get(id));
            }
            positions(connection, settled);
        }

        @Override
        public boolean ordered() {
            return ConsumerLoop.this.ordered();
        }

        @Override
        public long deliveries(String messageId) {
            M first = firstById.get(messageId);
            return first == null ? 0 : ConsumerLoop.this.deliveries(first);
        }
    }
}
