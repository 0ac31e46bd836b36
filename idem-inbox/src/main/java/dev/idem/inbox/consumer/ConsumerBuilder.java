package dev.idem.inbox.consumer;

import dev.idem.inbox.Inbox;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings every broker consumer has, under one name each: {@link #consumerName},
 * {@link #messageIdExtractor}, {@link #handler}, {@link #listener} and {@link #storeFailureBackoff}.
 * Each setter validates its value.
 *
 * @param <M> the broker client's message type
 * @param <B> the broker consumer's builder
 */
public abstract class ConsumerBuilder<M, B extends ConsumerBuilder<M, B>> {
    private final Inbox inbox;
    private String consumerName;
    private MessageIdExtractor<? super M> messageIds;
    private MessageHandler<M> handler;
    private ConsumerListener<? super M> listener = new ConsumerListener<>() { };
    private Duration storeFailureBackoff = Duration.ofSeconds(1);
    private ConsumerTracing tracing = ConsumerTracing.NONE;

    protected ConsumerBuilder(Inbox inbox, MessageIdExtractor<? super M> standardIds) {
        this.inbox = Objects.requireNonNull(inbox, "inbox is null");
        this.messageIds = standardIds;
    }

    /**
     * The inbox consumer name that scopes message ids (e.g. {@code ledger}): 1–200 visible ASCII
     * characters. Consumers that must not apply one message twice share a name.
     */
    public B consumerName(String consumerName) {
        this.consumerName = Inbox.checkConsumerName(consumerName, "consumerName");
        return self();
    }

    /** Where the message id comes from; each broker's default is its module's {@code standard()} extractor. */
    public B messageIdExtractor(MessageIdExtractor<? super M> messageIdExtractor) {
        this.messageIds = Objects.requireNonNull(messageIdExtractor, "messageIdExtractor is null");
        return self();
    }

    /** The work per new message, on the inbox's transaction. Required. */
    public B handler(MessageHandler<M> handler) {
        this.handler = Objects.requireNonNull(handler, "handler is null");
        return self();
    }

    /** Told of each delivery's outcome (processed, duplicate, failed, quarantined, refused) and of store and acknowledgement failures, for metrics. Default: nothing. */
    public B listener(ConsumerListener<? super M> listener) {
        this.listener = Objects.requireNonNull(listener, "listener is null");
        return self();
    }

    /** Wraps each delivery's handling, e.g. in a span continuing the producer's trace. Default: nothing. */
    public B tracing(ConsumerTracing tracing) {
        this.tracing = Objects.requireNonNull(tracing, "tracing is null");
        return self();
    }

    /** Pause before a batch goes back to the broker after the database failed: 1 ms – 10 min, default 1 s. */
    public B storeFailureBackoff(Duration backoff) {
        Objects.requireNonNull(backoff, "storeFailureBackoff is null");
        if (backoff.toMillis() < 1 || backoff.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("storeFailureBackoff must be 1 ms - 10 min, was " + backoff);
        }
        this.storeFailureBackoff = backoff;
        return self();
    }

    /** For a broker setting that also sets the store-failure pause, with its own range already checked. */
    protected void storeFailureBackoffChecked(Duration backoff) {
        this.storeFailureBackoff = backoff;
    }

    /**
     * The inbox's rule for consumer names (1–200 visible ASCII characters), for a name that comes from
     * elsewhere (e.g. a Kafka group id); {@code what} is named in the error.
     */
    public static String checkConsumerName(String name, String what) {
        return Inbox.checkConsumerName(name, what);
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    public Inbox inbox() {
        return inbox;
    }

    /** Null until set. */
    public String consumerName() {
        return consumerName;
    }

    /** Null until set. */
    public MessageHandler<M> handler() {
        return handler;
    }

    MessageIdExtractor<? super M> messageIds() {
        return messageIds;
    }

    ConsumerListener<? super M> listener() {
        return listener;
    }

    Duration storeFailureBackoff() {
        return storeFailureBackoff;
    }

    ConsumerTracing tracing() {
        return tracing;
    }
}
