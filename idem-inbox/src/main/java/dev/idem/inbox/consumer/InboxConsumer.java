package dev.idem.inbox.consumer;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The public face of a broker's {@link ConsumerLoop}, the same for every broker: start once (on a thread
 * of its own, or {@link #run} on the caller's), close, the running state, what ended it, the replay of
 * a quarantined message, and the counters. A broker's consumer adds its builder, its loop and its own
 * settings and counters. See {@code docs/messaging.md}.
 *
 * @param <M> the broker's message type
 * @param <C> the broker's consumer type, which {@link #start()} returns
 */
public abstract class InboxConsumer<M, C extends InboxConsumer<M, C>> implements Runnable, AutoCloseable {
    private final ConsumerLoop<M> loop;
    private final Duration closeTimeout;
    private boolean started;

    /**
     * @param loop         the broker's loop, made from the consumer's settings
     * @param closeTimeout how long {@link #close()} waits for the loop to finish its batch and release the broker
     */
    protected InboxConsumer(ConsumerLoop<M> loop, Duration closeTimeout) {
        this.loop = Objects.requireNonNull(loop, "loop is null");
        this.closeTimeout = Objects.requireNonNull(closeTimeout, "closeTimeout is null");
    }

    /**
     * Subscribes to the broker (where the broker binds on the caller's thread) and starts the loop on a
     * daemon thread of its own.
     *
     * @throws IOException           if the broker refused; nothing is left open
     * @throws IllegalStateException if already started or run
     */
    public C start() throws IOException {
        begin();
        loop.start(threadName());
        return self();
    }

    /**
     * Subscribes and runs the loop on the caller's thread until {@link #close()}; then releases the
     * broker. Throws what ended the loop otherwise (the broker is released then too).
     *
     * @throws IllegalStateException if already started or run, or if the broker refused the subscription
     */
    @Override
    public final void run() {
        try {
            begin();
        } catch (IOException e) {
            throw new IllegalStateException("consumer " + consumerName() + " could not subscribe to " + loop.source(), e);
        }
        loop.run();
    }

    private synchronized void begin() throws IOException {
        if (started) {
            throw new IllegalStateException("consumer " + consumerName() + " on " + loop.source() + " was already started; it runs once (it ran already): build a new one");
        }
        started = true;
        if (!loop.closed()) {
            loop.subscribe();
        }
    }

    /**
     * Stops fetching, lets the batch in progress finish (and be acknowledged), then releases the
     * subscription: what was not processed goes back to the broker. Waits up to the close timeout.
     */
    @Override
    public final void close() {
        loop.close(closeTimeout);
    }

    /** Whether the consumer is subscribed and its loop runs. */
    public final boolean isRunning() {
        return loop.isRunning();
    }

    /** What ended the loop, if it ended with an exception. */
    public final Optional<Throwable> failure() {
        return loop.failure();
    }

    /**
     * Replays a quarantined message after a fix ({@link Inbox#replay}): the handler gets the broker's
     * message rebuilt from the quarantined body and headers. The broker is not involved: it was told to
     * forget the message when it was quarantined.
     *
     * @return {@code PROCESSED}, {@code QUARANTINED} (the handler threw again) or {@code DUPLICATE} (not in the quarantine)
     * @throws IllegalStateException if the consumer name is not known yet (a broker that supplies it, before it ran)
     */
    public final InboxOutcome replay(String messageId, MessageHandler<M> fixedHandler) {
        if (consumerName() == null) {
            throw new IllegalStateException("the consumer name is known once the consumer runs; set consumerName to replay before");
        }
        return loop.replay(messageId, fixedHandler);
    }

    /** The inbox consumer name that scopes this consumer's message ids: the configured one, else the broker's once running. */
    public final String consumerName() {
        return loop.consumerName();
    }

    /** Messages acknowledged to the broker so far. */
    public final long acknowledged() {
        return loop.acknowledgedCount();
    }

    /** Messages refused for want of a usable message id so far. */
    public final long refused() {
        return loop.refused();
    }

    /** The name of the loop's thread. */
    protected abstract String threadName();

    @SuppressWarnings("unchecked")
    private C self() {
        return (C) this;
    }
}
