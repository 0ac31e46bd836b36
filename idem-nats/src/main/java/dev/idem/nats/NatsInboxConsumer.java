package dev.idem.nats;

import dev.idem.inbox.consumer.BrokerAdapter;
import dev.idem.inbox.consumer.ConsumerBuilder;
import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.ConsumerLoop;
import dev.idem.inbox.consumer.InboxConsumer;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.spi.Arguments;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

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
 * <p>{@link #start()} creates the durable consumer or updates its settings, binds a pull subscription
 * and starts a worker thread that fetches up to {@code batchSize} messages, waiting up to
 * {@code fetchWait} for them. The connection stays the application's. If it closes, the consumer
 * stops; its unacknowledged messages are redelivered after {@code AckWait} to whoever pulls from the
 * durable next.
 */
public final class NatsInboxConsumer extends InboxConsumer<Message, NatsInboxConsumer> {
    private static final System.Logger LOG = System.getLogger("dev.idem.nats");
    /** Header names under which a quarantined message's subject and origin are kept, for replay. */
    static final String SUBJECT = "nats.subject";
    static final String STREAM = "nats.stream";
    static final String STREAM_SEQUENCE = "nats.stream-sequence";

    private final Connection connection;
    private final String stream;
    private final String durable;
    private final String filterSubject;
    private final int batchSize;
    private final Duration fetchWait;
    private final Duration ackWait;
    private final long maxDeliver;
    private final long maxAckPending;
    private final Duration nakDelay;
    private final Duration ackTimeout;
    private final AckHook beforeAck;

    private final AtomicLong naks = new AtomicLong();
    private final AtomicLong terminated = new AtomicLong();
    private JetStreamSubscription subscription;

    private NatsInboxConsumer(Builder b) {
        super(b, "stream '" + b.stream + "'");
        this.connection = b.connection;
        this.stream = b.stream;
        this.durable = b.durable;
        this.filterSubject = b.filterSubject;
        this.batchSize = b.batchSize;
        this.fetchWait = b.fetchWait;
        this.ackWait = b.ackWait;
        this.maxDeliver = b.maxDeliver;
        this.maxAckPending = b.maxAckPending;
        this.nakDelay = b.nakDelay;
        this.ackTimeout = b.ackTimeout;
        this.beforeAck = b.beforeAck;
    }

    public static Builder builder(Inbox inbox) {
        return new Builder(inbox);
    }

    /**
     * Creates (or updates) the durable pull consumer with explicit acks, {@code AckWait},
     * {@code MaxDeliver} and {@code MaxAckPending}, and binds to it. On {@link #close()} the durable
     * consumer stays on the server (delete it with {@code JetStreamManagement} if it is no longer
     * wanted); the connection stays open.
     *
     * @throws IOException if JetStream refused (no such stream, settings it will not change, no JetStream)
     */
    @Override
    protected void subscribe() throws IOException {
        try {
            JetStreamManagement jsm = connection.jetStreamManagement();
            ConsumerConfiguration.Builder config = ConsumerConfiguration.builder()
                    .durable(durable)
                    .ackPolicy(AckPolicy.Explicit)
                    .ackWait(ackWait)
                    .maxDeliver(maxDeliver)
                    .maxAckPending(maxAckPending);
            if (filterSubject != null) {
                config.filterSubject(filterSubject);
            }
            jsm.addOrUpdateConsumer(stream, config.build());
            subscription = connection.jetStream().subscribe(filterSubject, PullSubscribeOptions.bind(stream, durable));
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            throw new IOException("consumer " + consumerName() + " could not bind durable '" + durable + "' on stream '" + stream + "': "
                    + e.getMessage(), e);
        }
    }

    @Override
    protected String threadName() {
        return "idem-nats-" + consumerName() + "-" + stream;
    }

    @Override
    protected BrokerAdapter<Message> adapter() {
        return new JetStreamAdapter();
    }

    public String stream() {
        return stream;
    }

    public String durable() {
        return durable;
    }

    /** Messages nak'ed (for redelivery) so far. */
    public long naks() {
        return naks.get();
    }

    /** Messages terminated (quarantined or refused) so far. */
    public long terminated() {
        return terminated.get();
    }

    @Override
    public String toString() {
        return "NatsInboxConsumer[stream=" + stream + ", durable=" + durable + ", consumer=" + consumerName() + ", batchSize=" + batchSize
                + ", running=" + isRunning() + "]";
    }

    /** The durable pull subscription as the loop's broker; one call per message, no state between fetches. */
    private final class JetStreamAdapter implements BrokerAdapter<Message> {

        @Override
        public List<Message> fetch() {
            if (connection.getStatus() == Connection.Status.CLOSED) {
                throw new IllegalStateException("the NATS connection is closed");
            }
            // Only JetStream messages can be acknowledged; anything else a fetch returns is passed over.
            return subscription.fetch(batchSize, fetchWait).stream().filter(Message::isJetStream).toList();
        }

        @Override
        public byte[] body(Message m) {
            return m.getData();
        }

        @Override
        public Map<String, String> headers(Message m) {
            return headersOf(m);
        }

        /** JetStream's NumDelivered: it counts also the deliveries whose consumer died before the inbox counted them. */
        @Override
        public long deliveries(Message m) {
            return m.metaData().deliveredCount();
        }

        @Override
        public String missingIdHint() {
            return "no Nats-Msg-Id header and nothing the consumer's MessageIdExtractor accepts";
        }

        @Override
        public String describe(Message m) {
            return "a message on stream '" + stream + "' (stream sequence " + m.metaData().streamSequence() + ")";
        }

        @Override
        public String refusal() {
            return "It was terminated (term): JetStream will not redeliver it.";
        }

        @Override
        public void refuse(Message m, String reason) {
            quarantined(m);
        }

        @Override
        public void committed(List<Message> claimed) throws Exception {
            beforeAck.beforeAck(connection, claimed);
        }

        @Override
        public void ack(Message m) throws InterruptedException {
            try {
                m.ackSync(ackTimeout);
                countAcknowledged(1);
            } catch (TimeoutException e) {
                // JetStream redelivers it after AckWait; the inbox will answer DUPLICATE.
                loop().ackFailed(m, e);
            }
        }

        @Override
        public void quarantined(Message m) {
            m.term();
            terminated.incrementAndGet();
        }

        @Override
        public void redeliver(Message m) {
            if (nakDelay.isZero()) {
                m.nak();
            } else {
                m.nakWithDelay(nakDelay);
            }
            naks.incrementAndGet();
        }

        @Override
        public synchronized void release(Throwable failure) {
            JetStreamSubscription sub = subscription;
            subscription = null;
            if (sub != null && connection.getStatus() != Connection.Status.CLOSED) {
                try {
                    sub.unsubscribe();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "unsubscribing consumer " + consumerName() + " failed", e);
                }
            }
        }
    }

    // ---- headers -------------------------------------------------------------------------------------------

    /** The message's headers (multiple values joined by commas), subject and origin, kept with the message if it is quarantined. */
    static Map<String, String> headersOf(Message m) {
        Map<String, String> out = new LinkedHashMap<>();
        if (m.getSubject() != null) {
            out.put(SUBJECT, m.getSubject());
        }
        if (m.isJetStream()) {
            out.put(STREAM, m.metaData().getStream());
            out.put(STREAM_SEQUENCE, Long.toString(m.metaData().streamSequence()));
        }
        if (m.hasHeaders()) {
            for (Map.Entry<String, List<String>> e : m.getHeaders().entrySet()) {
                if (e.getKey() != null && !e.getKey().isEmpty() && e.getValue() != null) {
                    out.put(e.getKey(), String.join(",", e.getValue()));
                }
            }
        }
        return out;
    }

    /**
     * A plain (not JetStream) message rebuilt from the quarantined subject, headers and data; acking it
     * is neither needed nor possible, as the original was terminated when it was quarantined.
     */
    @Override
    protected Message rebuild(InboxMessage m) {
        Headers headers = new Headers();
        m.headers().forEach((name, value) -> {
            if (!name.startsWith("nats.")) {
                headers.put(name, value);
            }
        });
        if (!headers.containsKey(NatsMessageIds.NATS_MSG_ID)) {
            headers.put(NatsMessageIds.NATS_MSG_ID, m.id());
        }
        String subject = m.headers().getOrDefault(SUBJECT, filterSubject != null && !filterSubject.contains("*") && !filterSubject.contains(">")
                ? filterSubject : stream);
        return NatsMessage.builder().subject(subject).headers(headers).data(m.payload()).build();
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
        private Connection connection;
        private String stream;
        private String durable;
        private String filterSubject;
        private int batchSize = 256;
        private Duration fetchWait = Duration.ofMillis(500);
        private Duration ackWait = Duration.ofSeconds(30);
        private long maxDeliver = -1;
        private long maxAckPending = 1000;
        private Duration nakDelay = Duration.ZERO;
        private Duration ackTimeout = Duration.ofSeconds(5);
        private AckHook beforeAck = AckHook.NONE;

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
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("batchSize must be 1-10000, was " + batchSize);
            }
            this.batchSize = batchSize;
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
            return new NatsInboxConsumer(this);
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
