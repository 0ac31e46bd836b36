package dev.idem.inbox.consumer;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every push or pull broker's inbox consumer offers around its {@link ConsumerLoop}, written once:
 * start once (subscribe, then the loop on a thread of its own), close, the running state, the replay of
 * a quarantined message through a message the broker adapter rebuilds, and the counters the loop and the
 * adapter keep. A broker's consumer adds its subscription, its adapter and its own settings.
 *
 * @param <M> the broker's message type
 * @param <C> the broker's consumer type, which {@link #start()} returns
 */
public abstract class InboxConsumer<M, C extends InboxConsumer<M, C>> implements AutoCloseable {
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final Inbox inbox;
    private final String consumerName;
    private final String source;
    private final ConsumerLoop<M> loop;
    private final AtomicLong acknowledged = new AtomicLong();
    private boolean started;

    /**
     * @param settings the consumer's settings, whose loop drives the broker's {@link #adapter()}
     * @param source   what the consumer reads, as messages name it, e.g. {@code queue 'payments'}
     */
    protected InboxConsumer(ConsumerBuilder<M, ?> settings, String source) {
        this.inbox = settings.inbox();
        this.consumerName = settings.consumerName();
        this.source = source;
        this.loop = settings.loop(adapter(), source);
    }

    /**
     * Subscribes to the broker ({@link #subscribe()}) and starts the consumer's loop on a thread of its own.
     *
     * @throws IOException           if the broker refused; nothing is left open
     * @throws IllegalStateException if already started
     */
    public final synchronized C start() throws IOException {
        if (started) {
            throw new IllegalStateException("consumer " + consumerName + " on " + source + " was already started");
        }
        started = true;
        subscribe();
        loop.start(threadName());
        return self();
    }

    /**
     * Stops fetching, lets the batch in progress finish (and be acknowledged), then releases the
     * subscription: what was not processed goes back to the broker.
     */
    @Override
    public final void close() {
        loop.close(CLOSE_TIMEOUT);
    }

    /** Whether the consumer is subscribed and its loop runs. */
    public final boolean isRunning() {
        return loop.isRunning();
    }

    /**
     * Replays a quarantined message after a fix ({@link Inbox#replay}): the handler gets the broker's
     * message rebuilt from the quarantined body and headers ({@link #rebuild}). The broker is not
     * involved: it was told to forget the message when it was quarantined.
     *
     * @return {@code PROCESSED}, {@code QUARANTINED} (the handler threw again) or {@code DUPLICATE} (not in the quarantine)
     */
    public final InboxOutcome replay(String messageId, MessageHandler<M> fixedHandler) {
        Objects.requireNonNull(fixedHandler, "handler is null");
        return inbox.replay(consumerName, messageId, (c, m) -> fixedHandler.handle(c, rebuild(m)));
    }

    /** The inbox consumer name that scopes this consumer's message ids. */
    public final String consumerName() {
        return consumerName;
    }

    /** Messages acknowledged to the broker so far. */
    public final long acknowledged() {
        return acknowledged.get();
    }

    /** Messages refused for want of a usable message id so far. */
    public final long refused() {
        return loop.refused();
    }

    /** The loop, for an adapter's report of an acknowledgement that failed. */
    protected final ConsumerLoop<M> loop() {
        return loop;
    }

    /** Counts {@code count} messages the broker confirmed as acknowledged. */
    protected final void countAcknowledged(long count) {
        acknowledged.addAndGet(count);
    }

    /**
     * The broker's side of the loop. Called once, from this class's constructor: the adapter may read
     * the consumer's fields when the loop calls it, not when it is made.
     */
    protected abstract BrokerAdapter<M> adapter();

    /** Binds to the broker, leaving nothing open if it refuses. */
    protected abstract void subscribe() throws IOException;

    /** The name of the loop's thread. */
    protected abstract String threadName();

    /** The broker's message as the fixed handler of {@link #replay} gets it. */
    protected abstract M rebuild(InboxMessage quarantined);

    @SuppressWarnings("unchecked")
    private C self() {
        return (C) this;
    }
}
