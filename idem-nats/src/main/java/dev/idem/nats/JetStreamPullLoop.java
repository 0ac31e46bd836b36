package dev.idem.nats;

import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.consumer.ConsumerLoop;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ServerInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A JetStream durable pull subscription as a {@link NatsInboxConsumer}'s {@link ConsumerLoop}: the
 * durable consumer it creates or updates and binds, the fetches, and one acknowledgement call per
 * message ({@code ackSync}, {@code nak}, {@code term}); no state between fetches.
 */
final class JetStreamPullLoop extends ConsumerLoop<Message> {
    private static final System.Logger LOG = System.getLogger("dev.idem.nats");

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
    private final NatsInboxConsumer.AckHook beforeAck;

    final AtomicLong naks = new AtomicLong();
    final AtomicLong terminated = new AtomicLong();
    private volatile JetStreamSubscription subscription;

    JetStreamPullLoop(NatsInboxConsumer.Builder b) {
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

    /**
     * Creates (or updates) the durable pull consumer with explicit acks, {@code AckWait},
     * {@code MaxDeliver} and {@code MaxAckPending}, and binds to it.
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
            warnIfCountsCanGoBack();
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            throw new IOException("consumer " + consumerName() + " could not bind durable '" + durable + "' on stream '" + stream + "': "
                    + e.getMessage(), e);
        }
    }

    /** The first nats-server release that never sends a redelivery again as a first delivery. */
    static final String SERVER_COUNTING_REDELIVERIES = "2.10.14";

    /**
     * nats-server before 2.10.14 can send a redelivery that found only expired pull requests again as
     * a first delivery (delivered count 1, nats-server #5305). The inbox trusts that count, so it then
     * allows more attempts than {@code maxAttempts} — harmless while {@code MaxDeliver} is unlimited,
     * but with a limit, repeated hits could let JetStream drop a poison message before the inbox
     * quarantines it. Said once, at start, naming both versions.
     */
    private void warnIfCountsCanGoBack() {
        ServerInfo server = connection.getServerInfo();
        if (maxDeliver != -1 && server != null && server.isOlderThanVersion(SERVER_COUNTING_REDELIVERIES)) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + consumerName() + ": maxDeliver " + maxDeliver + " on nats-server "
                    + server.getVersion() + ", which can count a redelivery as a first delivery (fixed in " + SERVER_COUNTING_REDELIVERIES
                    + "): a poison message could be dropped by MaxDeliver before the inbox quarantines it; upgrade the server or leave"
                    + " maxDeliver unlimited (-1)");
        }
    }

    @Override
    protected List<Message> fetch() {
        if (connection.getStatus() == Connection.Status.CLOSED) {
            throw new IllegalStateException("the NATS connection is closed");
        }
        // Only JetStream messages can be acknowledged; anything else a fetch returns is passed over.
        return subscription.fetch(batchSize, fetchWait).stream().filter(Message::isJetStream).toList();
    }

    @Override
    protected byte[] body(Message m) {
        return m.getData();
    }

    @Override
    protected Map<String, String> headers(Message m) {
        return headersOf(m);
    }

    /** JetStream's NumDelivered: it counts also the deliveries whose consumer died before the inbox counted them. */
    @Override
    protected long deliveries(Message m) {
        return m.metaData().deliveredCount();
    }

    @Override
    protected String missingIdHint() {
        return "no Nats-Msg-Id header and nothing the consumer's MessageIdExtractor accepts";
    }

    @Override
    protected String describe(Message m) {
        return "a message on stream '" + stream + "' (stream sequence " + m.metaData().streamSequence() + ")";
    }

    @Override
    protected String refusal() {
        return "It was terminated (term): JetStream will not redeliver it.";
    }

    @Override
    protected void refuse(Message m, String reason) {
        quarantined(m);
    }

    @Override
    protected void committed(List<Message> claimed) throws Exception {
        beforeAck.beforeAck(connection, claimed);
    }

    @Override
    protected void ack(Message m) throws InterruptedException {
        try {
            m.ackSync(ackTimeout);
            acknowledged(1);
        } catch (TimeoutException e) {
            // JetStream redelivers it after AckWait; the inbox will answer DUPLICATE.
            ackFailed(m, e);
        }
    }

    @Override
    protected void quarantined(Message m) {
        m.term();
        terminated.incrementAndGet();
    }

    @Override
    protected void redeliver(Message m) {
        if (nakDelay.isZero()) {
            m.nak();
        } else {
            m.nakWithDelay(nakDelay);
        }
        naks.incrementAndGet();
    }

    @Override
    protected synchronized void release(Throwable failure) {
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
        String subject = m.headers().getOrDefault(NatsInboxConsumer.SUBJECT,
                filterSubject != null && !filterSubject.contains("*") && !filterSubject.contains(">") ? filterSubject : stream);
        return NatsMessage.builder().subject(subject).headers(headers).data(m.payload()).build();
    }

    /** The message's headers (multiple values joined by commas), subject and origin, kept with the message if it is quarantined. */
    static Map<String, String> headersOf(Message m) {
        Map<String, String> out = new LinkedHashMap<>();
        if (m.getSubject() != null) {
            out.put(NatsInboxConsumer.SUBJECT, m.getSubject());
        }
        if (m.isJetStream()) {
            out.put(NatsInboxConsumer.STREAM, m.metaData().getStream());
            out.put(NatsInboxConsumer.STREAM_SEQUENCE, Long.toString(m.metaData().streamSequence()));
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
}
