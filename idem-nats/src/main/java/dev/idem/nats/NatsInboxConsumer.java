package dev.idem.nats;

import dev.idem.inbox.consumer.ConsumerBuilder;
import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.ConsumerLoop;
import dev.idem.inbox.consumer.InboxConsumer;
import dev.idem.inbox.Inbox;
import dev.idem.spi.Arguments;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An idempotent NATS JetStream consumer: a <b>durable pull consumer</b> with explicit acks whose
 * every fetch is processed with one {@link Inbox#processBatch} call (one claim statement, one
 * transaction, driven by the shared {@link ConsumerLoop}), and whose messages are acknowledged with {@code AckSync} <b>only after that
 * transaction committed</b>. A consumer that dies between the commit and the ack has its messages
 * redelivered after {@code AckWait}, to itself or to another instance bound to the same durable, and
 * the inbox answers them {@code DUPLICATE}: they are acknowledged without running the handler.
 *
 * <pre>{@code
 * NatsInboxConsumer consumer = NatsInboxConsumer.builder(inbox)
 *         .connection(nats).stream("PAYMENTS").durable("ledger").consumerName("ledger")
 *         .handler((sql, message) -> insertEntry(sql, message.getData()))
 *         .build().start();
 * }</pre>
 *
 * <h2>What happens to a message</h2>
 * <table>
 * <caption>outcomes</caption>
 * <tr><th>inbox outcome</th><th>to JetStream</th></tr>
 * <tr><td>PROCESSED (committed), DUPLICATE (seen before)</td><td>{@code ackSync}</td></tr>
 * <tr><td>FAILED: the handler threw; rolled back; the attempt is counted in the database</td>
 *     <td>{@code nak} (with {@code nakDelay}, if set): redelivered</td></tr>
 * <tr><td>QUARANTINED: the attempt that reached the inbox's {@code maxAttempts}, or any later delivery;
 *     the message (data, headers) is in the inbox's quarantine table</td>
 *     <td>{@code term}: never redelivered; replay or drop it from the database</td></tr>
 * <tr><td>no usable message id (see {@link NatsMessageIds})</td>
 *     <td>{@code term}, reported to {@link ConsumerListener#refused}</td></tr>
 * <tr><td>the database failed (nothing committed, nothing counted)</td><td>after a pause, {@code nak}</td></tr>
 * </table>
 *
 * <p>A failing message is quarantined once the inbox's durable attempt count or JetStream's own
 * delivery count ({@code NumDelivered}, which also counts deliveries whose consumer died before the
 * inbox could count them) reaches the inbox's {@code maxAttempts}. The consumer's {@code MaxDeliver}
 * is a second line for what the inbox cannot count (a database that keeps failing), and must be
 * above {@code maxAttempts}. The message id is the {@code Nats-Msg-Id} header (the same
 * header the stream deduplicates publishes on), else {@code <stream>:<sequence>}.
 *
 * <p>{@link #start()} creates the durable consumer or updates its settings (an {@link java.io.IOException} if
 * JetStream refuses: no such stream, settings it will not change, no JetStream), binds a pull subscription
 * and starts a worker thread that fetches up to {@code batchSize} messages, waiting up to
 * {@code fetchWait} for them. The connection stays the application's. If it closes, the consumer
 * stops; its unacknowledged messages are redelivered after {@code AckWait} to whoever pulls from the
 * durable next.
 */
public final class NatsInboxConsumer extends InboxConsumer<Message, NatsInboxConsumer> {
    /** Header names under which a quarantined message's subject and origin are kept, for replay. */
    static final String SUBJECT = "nats.subject";
    static final String STREAM = "nats.stream";
    static final String STREAM_SEQUENCE = "nats.stream-sequence";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final String stream;
    private final String durable;
    private final int batchSize;
    private final JetStreamPullLoop pull;

    private NatsInboxConsumer(Builder b, JetStreamPullLoop pull) {
        super(pull, CLOSE_TIMEOUT);
        this.stream = b.stream;
        this.durable = b.durable;
        this.batchSize = b.batchSize;
        this.pull = pull;
    }

    public static Builder builder(Inbox inbox) {
        return new Builder(inbox);
    }

    @Override
    protected String threadName() {
        return "idem-nats-" + consumerName() + "-" + stream;
    }

    public String stream() {
        return stream;
    }

    public String durable() {
        return durable;
    }

    /** Messages nak'ed (for redelivery) so far. */
    public long naks() {
        return pull.naks.get();
    }

    /** Messages terminated (quarantined or refused) so far. */
    public long terminated() {
        return pull.terminated.get();
    }

    @Override
    public String toString() {
        return "NatsInboxConsumer[stream=" + stream + ", durable=" + durable + ", consumer=" + consumerName() + ", batchSize=" + batchSize
                + ", running=" + isRunning() + "]";
    }

    // ---- settings ----------------------------------------------------------------------------------------

    /** A test's look at a fetch after the inbox committed and before the acks (to "kill" the consumer there). */
    @FunctionalInterface
    interface AckHook {
        AckHook NONE = (connection, batch) -> { };

        void beforeAck(Connection connection, List<Message> batch) throws Exception;
    }

    /**
     * Settings of a {@link NatsInboxConsumer}: the broker's own here, the ones every consumer has in
     * {@link ConsumerBuilder}. Each setter validates its value.
     */
    public static final class Builder extends ConsumerBuilder<Message, Builder> {
        Connection connection;
        String stream;
        String durable;
        String filterSubject;
        int batchSize = 256;
        Duration fetchWait = Duration.ofMillis(500);
        Duration ackWait = Duration.ofSeconds(30);
        long maxDeliver = -1;
        long maxAckPending = 1000;
        Duration nakDelay = Duration.ZERO;
        Duration ackTimeout = Duration.ofSeconds(5);
        AckHook beforeAck = AckHook.NONE;

        private Builder(Inbox inbox) {
            super(inbox, NatsMessageIds.standard());
        }

        /** The application's NATS connection; it stays the application's. Required. */
        public Builder connection(Connection connection) {
            this.connection = Objects.requireNonNull(connection, "connection is null");
            return this;
        }

        /** The stream to consume; it must exist. Required. */
        public Builder stream(String stream) {
            this.stream = checkName("stream", stream);
            return this;
        }

        /** The durable consumer's name on the server; instances sharing it share its messages. Required. */
        public Builder durable(String durable) {
            this.durable = checkName("durable", durable);
            return this;
        }

        /** Only messages on this subject (wildcards allowed). Default: the whole stream. */
        public Builder filterSubject(String filterSubject) {
            if (filterSubject == null || filterSubject.isEmpty() || filterSubject.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("filterSubject must be a non-empty subject without whitespace, was "
                        + (filterSubject == null ? "null" : "'" + filterSubject + "'"));
            }
            this.filterSubject = filterSubject;
            return this;
        }

        /** Messages per fetch, processed in one inbox transaction: 1–10000, default 256. */
        public Builder batchSize(int batchSize) {
            this.batchSize = Arguments.between("batchSize", batchSize, 1, 10_000);
            return this;
        }

        /** The longest a fetch waits to fill its batch: 10 ms – 1 min, default 500 ms. */
        public Builder fetchWait(Duration fetchWait) {
            this.fetchWait = Arguments.between("fetchWait", fetchWait, Duration.ofMillis(10), Duration.ofMinutes(1));
            return this;
        }

        /**
         * How long JetStream waits for an ack before redelivering: 1 s – 1 h, default 30 s. Must
         * outlast processing one batch; a consumer killed before acking is redelivered after it.
         */
        public Builder ackWait(Duration ackWait) {
            this.ackWait = Arguments.between("ackWait", ackWait, Duration.ofSeconds(1), Duration.ofHours(1));
            return this;
        }

        /**
         * Deliveries after which JetStream stops redelivering a message: -1 (unlimited, the default)
         * or above the inbox's {@code maxAttempts} (checked at {@link #build()}). The inbox quarantines
         * a failing message once JetStream's delivery count or its own reaches {@code maxAttempts}; the
         * deliveries above it are for attempts that die with their consumer.
         */
        public Builder maxDeliver(long maxDeliver) {
            if (maxDeliver != -1 && maxDeliver < 1) {
                throw new IllegalArgumentException("maxDeliver must be -1 (unlimited) or at least 1, was " + maxDeliver);
            }
            this.maxDeliver = maxDeliver;
            return this;
        }

        /** Delivered but unacknowledged messages JetStream allows this durable: 1–1000000, at least {@code batchSize}; default 1000. */
        public Builder maxAckPending(long maxAckPending) {
            if (maxAckPending < 1 || maxAckPending > 1_000_000) {
                throw new IllegalArgumentException("maxAckPending must be 1-1000000, was " + maxAckPending);
            }
            this.maxAckPending = maxAckPending;
            return this;
        }

        /** Delay before JetStream redelivers a failed message: 0 (at once, the default) – 1 h. */
        public Builder nakDelay(Duration nakDelay) {
            Objects.requireNonNull(nakDelay, "nakDelay is null");
            if (nakDelay.isNegative() || nakDelay.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("nakDelay must be 0 - 1 h, was " + nakDelay);
            }
            this.nakDelay = nakDelay;
            return this;
        }

        /** How long an {@code AckSync} waits for the server's confirmation: 10 ms – 1 min, default 5 s. */
        public Builder ackTimeout(Duration ackTimeout) {
            this.ackTimeout = Arguments.between("ackTimeout", ackTimeout, Duration.ofMillis(10), Duration.ofMinutes(1));
            return this;
        }

        Builder beforeAck(AckHook hook) {
            this.beforeAck = Objects.requireNonNull(hook, "hook is null");
            return this;
        }

        /** @throws IllegalStateException naming what is missing or inconsistent */
        public NatsInboxConsumer build() {
            List<String> missing = new ArrayList<>();
            if (connection == null) {
                missing.add("connection");
            }
            if (stream == null) {
                missing.add("stream");
            }
            if (durable == null) {
                missing.add("durable");
            }
            if (consumerName() == null) {
                missing.add("consumerName");
            }
            if (handler() == null) {
                missing.add("handler");
            }
            if (!missing.isEmpty()) {
                throw new IllegalStateException("NatsInboxConsumer needs " + String.join(", ", missing));
            }
            int maxAttempts = inbox().maxAttempts();
            if (maxDeliver != -1 && maxDeliver <= maxAttempts) {
                throw new IllegalStateException("maxDeliver " + maxDeliver + " is not above the inbox's maxAttempts " + maxAttempts
                        + ": set maxDeliver to at least " + (maxAttempts + 1) + " (or -1, unlimited), or lower the inbox's maxAttempts;"
                        + " JetStream must keep a delivery for a poison message whose attempt at the inbox's limit died with its"
                        + " consumer, else it drops the message unquarantined");
            }
            if (maxAckPending < batchSize) {
                throw new IllegalStateException("maxAckPending " + maxAckPending + " is below batchSize " + batchSize
                        + ": a fetch could never be filled");
            }
            return new NatsInboxConsumer(this, new JetStreamPullLoop(this));
        }

        /** Stream and consumer names: 1–255 characters, none of whitespace, '.', '*', '>', '/', '\'. */
        static String checkName(String what, String name) {
            if (name == null || name.isEmpty() || name.length() > 255) {
                throw new IllegalArgumentException(what + " must have 1-255 characters, was "
                        + (name == null ? "null" : name.length() + " characters"));
            }
            for (int i = 0; i < name.length(); i++) {
                char ch = name.charAt(i);
                if (Character.isWhitespace(ch) || Character.isISOControl(ch) || ch == '.' || ch == '*' || ch == '>' || ch == '/' || ch == '\\') {
                    throw new IllegalArgumentException(what + " must not contain whitespace, '.', '*', '>', '/' or '\\', was '" + name + "'");
                }
            }
            return name;
        }
    }
}
