package dev.idem.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.ShutdownSignalException;
import dev.idem.inbox.consumer.BrokerAdapter;
import dev.idem.inbox.consumer.ConsumerBuilder;
import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.ConsumerLoop;
import dev.idem.inbox.consumer.InboxConsumer;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An idempotent RabbitMQ consumer: each delivery's message id is claimed in an {@link Inbox} together
 * with the handler's database writes, in one transaction, and the delivery is acknowledged <b>only
 * after that transaction committed</b>. A consumer that dies between the commit and the ack gets its
 * deliveries redelivered (to itself or another consumer), and the inbox answers them
 * {@code DUPLICATE}: they are acknowledged without running the handler again.
 *
 * <pre>{@code
 * RabbitInboxConsumer consumer = RabbitInboxConsumer.builder(inbox)
 *         .connection(connection).queue("payments").consumerName("ledger")
 *         .handler((sql, delivery) -> insertEntry(sql, delivery.getBody()))
 *         .build().start();
 * }</pre>
 *
 * <h2>What happens to a delivery</h2>
 * <table>
 * <caption>outcomes</caption>
 * <tr><th>inbox outcome</th><th>to the broker</th></tr>
 * <tr><td>PROCESSED (committed), DUPLICATE (seen before)</td><td>ack</td></tr>
 * <tr><td>FAILED: the handler threw; rolled back; the attempt is counted in the database</td>
 *     <td>nack with requeue: the broker redelivers it</td></tr>
 * <tr><td>QUARANTINED: the attempt that reached the inbox's {@code maxAttempts}, or any later
 *     delivery; the message (body, headers) is in the inbox's quarantine table</td>
 *     <td>ack: the broker forgets it; the operator replays or drops it from the database</td></tr>
 * <tr><td>no message id (see {@link RabbitMessageIds})</td>
 *     <td>reject without requeue: dead-lettered if the queue has a dead-letter exchange, else
 *     dropped by the broker; reported to {@link ConsumerListener#refused}</td></tr>
 * <tr><td>the database failed (nothing committed, nothing counted)</td>
 *     <td>after a pause, nack with requeue</td></tr>
 * </table>
 *
 * <h2>The attempt count: the inbox first, the queue's delivery limit second</h2>
 * The inbox counts failed attempts durably, so the count survives consumer restarts and is shared
 * by all consumers of the queue. On a quorum queue the consumer also trusts the queue's own
 * {@code x-delivery-count}, which counts the deliveries whose consumer died before the inbox could
 * count them: a failing message is quarantined once either count reaches {@code maxAttempts}. A
 * quorum queue's {@code x-delivery-limit} (see {@link #quorumQueueArguments}) is a useful second line
 * for what the inbox cannot count, a database that keeps failing: set it above the inbox's
 * {@code maxAttempts} (and give the queue a dead-letter exchange), so the inbox quarantines a poison
 * message before the broker dead-letters it.
 *
 * <h2>Batches</h2>
 * Deliveries arrive up to {@code prefetch} at a time ({@code basic.qos}); the consumer's
 * {@link ConsumerLoop} takes what has arrived (at most {@code prefetch}) and processes it as one inbox batch:
 * one claim statement, one transaction. An id that occurs twice in a batch is handled once. If the
 * handler throws for one message, the inbox redoes the batch one message per transaction, so only
 * that one fails. Acknowledgements then go out as one multiple-ack where possible.
 *
 * <p>The consumer opens its own channel on the given connection (or on a connection it opens from a
 * {@link ConnectionFactory}, which it also closes). If the channel closes for good (an error, the
 * connection lost without automatic recovery, the queue deleted), the consumer stops and its
 * unacknowledged deliveries return to the queue; with automatic recovery the channel and the
 * subscription are recovered and deliveries from before the recovery are simply redelivered.
 */
public final class RabbitInboxConsumer extends InboxConsumer<Delivery, RabbitInboxConsumer> {
    private static final System.Logger LOG = System.getLogger("dev.idem.rabbitmq");
    /** Header names under which AMQP properties of a quarantined delivery are kept, for replay. */
    static final String TYPE = "amqp.type";
    static final String CONTENT_TYPE = "amqp.content-type";
    static final String CORRELATION_ID = "amqp.correlation-id";
    static final String ROUTING_KEY = "amqp.routing-key";
    static final String EXCHANGE = "amqp.exchange";

    private final Connection givenConnection;
    private final ConnectionFactory connectionFactory;
    private final String queue;
    private final int prefetch;
    private final AckHook beforeAck;

    private final BlockingQueue<Delivery> arrived = new LinkedBlockingQueue<>();
    private final AtomicLong requeued = new AtomicLong();
    private volatile RuntimeException gone;
    private Connection ownedConnection;
    private Channel channel;
    private String consumerTag;

    private RabbitInboxConsumer(Builder b) {
        super(b, "queue '" + b.queue + "'");
        this.givenConnection = b.connection;
        this.connectionFactory = b.connectionFactory;
        this.queue = b.queue;
        this.prefetch = b.prefetch;
        this.beforeAck = b.beforeAck;
    }

    public static Builder builder(Inbox inbox) {
        return new Builder(inbox);
    }

    /**
     * Arguments for a quorum queue whose broker-side {@code x-delivery-limit} backs up the inbox's
     * attempt count; add {@code x-dead-letter-exchange} to keep what the limit removes.
     *
     * <pre>{@code
     * Map<String, Object> args = RabbitInboxConsumer.quorumQueueArguments(inbox.maxAttempts() + 5);
     * args.put("x-dead-letter-exchange", "payments.dlx");
     * channel.queueDeclare("payments", true, false, false, args);
     * }</pre>
     *
     * @param deliveryLimit redeliveries after which the broker dead-letters (or drops) a message: 1–10000;
     *                      choose it above the inbox's {@code maxAttempts}
     * @return a mutable map
     */
    public static Map<String, Object> quorumQueueArguments(int deliveryLimit) {
        if (deliveryLimit < 1 || deliveryLimit > 10_000) {
            throw new IllegalArgumentException("deliveryLimit must be 1-10000, was " + deliveryLimit);
        }
        Map<String, Object> args = new HashMap<>();
        args.put("x-queue-type", "quorum");
        args.put("x-delivery-limit", deliveryLimit);
        return args;
    }

    /**
     * Opens the channel, sets the prefetch and subscribes with manual acknowledgements. On
     * {@link #close()} the channel is closed after the batch in progress, so deliveries not yet
     * processed go back to the queue, and so is the connection if the consumer opened it.
     *
     * @throws IOException if the broker refused (e.g. the queue does not exist); nothing is left open
     */
    @Override
    protected synchronized void subscribe() throws IOException {
        try {
            Connection connection = givenConnection;
            if (connection == null) {
                ownedConnection = connectionFactory.newConnection("idem-" + consumerName());
                connection = ownedConnection;
            }
            channel = connection.createChannel();
            if (channel == null) {
                throw new IOException("the connection has no free channel");
            }
            channel.basicQos(prefetch);
            consumerTag = channel.basicConsume(queue, false, new Subscription(channel));
        } catch (IOException | TimeoutException | RuntimeException e) {
            closeQuietly();
            if (e instanceof IOException) {
                throw new IOException("consumer " + consumerName() + " could not subscribe to queue '" + queue + "'", e);
            }
            if (e instanceof TimeoutException) {
                throw new IOException("consumer " + consumerName() + " timed out connecting for queue '" + queue + "'", e);
            }
            throw (RuntimeException) e;
        }
    }

    @Override
    protected String threadName() {
        return "idem-rabbitmq-" + consumerName() + "-" + queue;
    }

    @Override
    protected BrokerAdapter<Delivery> adapter() {
        return new ChannelAdapter();
    }

    public String queue() {
        return queue;
    }

    public int prefetch() {
        return prefetch;
    }

    /** Deliveries this consumer returned to the queue (nack with requeue) so far. */
    public long requeued() {
        return requeued.get();
    }

    @Override
    public String toString() {
        return "RabbitInboxConsumer[queue=" + queue + ", consumer=" + consumerName() + ", prefetch=" + prefetch
                + ", running=" + isRunning() + "]";
    }

    /**
     * The consumer's channel as the loop's broker. Settled deliveries are collected and acknowledged
     * with one multiple-ack after each batch; failed ones are nack'ed (requeued) one by one as they come.
     */
    private final class ChannelAdapter implements BrokerAdapter<Delivery> {
        private long lastAck = -1;
        private int acks;

        @Override
        public List<Delivery> fetch() throws InterruptedException {
            Delivery first = arrived.poll(100, TimeUnit.MILLISECONDS);
            if (gone != null) {
                throw gone;
            }
            if (first == null) {
                return List.of();
            }
            List<Delivery> batch = new ArrayList<>(prefetch);
            batch.add(first);
            arrived.drainTo(batch, prefetch - 1);
            return batch;
        }

        @Override
        public byte[] body(Delivery d) {
            return d.getBody();
        }

        @Override
        public Map<String, String> headers(Delivery d) {
            return headersOf(d);
        }

        /**
         * A quorum queue's {@code x-delivery-count} (the earlier deliveries given back, also by a consumer
         * that died) plus this one; 0 on a queue that keeps no count (a classic queue).
         */
        @Override
        public long deliveries(Delivery d) {
            return deliveryCount(d.getProperties().getHeaders());
        }

        @Override
        public String missingIdHint() {
            return "no AMQP message-id property and nothing the consumer's MessageIdExtractor accepts; "
                    + "publish it with a message id that stays the same on every retry";
        }

        @Override
        public String describe(Delivery d) {
            return "a delivery on queue '" + queue + "' (delivery tag " + d.getEnvelope().getDeliveryTag() + ")";
        }

        @Override
        public String refusal() {
            return "It was rejected without requeue (dead-lettered if the queue has a dead-letter exchange).";
        }

        @Override
        public void refuse(Delivery d, String reason) throws IOException {
            channel.basicReject(d.getEnvelope().getDeliveryTag(), false);
        }

        @Override
        public void redeliverAll(List<Delivery> claimed) throws IOException {
            channel.basicNack(maxTag(claimed), true, true);
            requeued.addAndGet(claimed.size());
        }

        @Override
        public void committed(List<Delivery> claimed) throws Exception {
            beforeAck.beforeAck(channel, claimed);
        }

        @Override
        public void ack(Delivery d) {
            lastAck = Math.max(lastAck, d.getEnvelope().getDeliveryTag());
            acks++;
        }

        @Override
        public void quarantined(Delivery d) {
            ack(d);  // the inbox keeps the message; the queue may forget it
        }

        @Override
        public void redeliver(Delivery d) throws IOException {
            channel.basicNack(d.getEnvelope().getDeliveryTag(), false, true);
            requeued.incrementAndGet();
        }

        @Override
        public void afterFetch() throws IOException {
            if (acks > 0) {
                // Every delivery up to lastAck that is still unacknowledged on this channel belongs to this
                // batch and is settled: the refused and failed ones were answered above, earlier batches before.
                channel.basicAck(lastAck, true);
                countAcknowledged(acks);
                acks = 0;
            }
        }

        @Override
        public void wakeup() {
            try {
                Channel ch = channel;
                if (ch != null && ch.isOpen() && consumerTag != null) {
                    ch.basicCancel(consumerTag);
                }
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "cancelling consumer " + consumerName() + " failed", e);
            }
        }

        @Override
        public void release(Throwable failure) {
            // Deliveries taken but not processed cannot be acknowledged any more; the broker redelivers them.
            arrived.clear();
            closeQuietly();
        }
    }

    /** The header a quorum queue sets on a redelivery: how many deliveries of the message came back before. */
    static final String DELIVERY_COUNT = "x-delivery-count";

    static long deliveryCount(Map<String, Object> headers) {
        Object returned = headers == null ? null : headers.get(DELIVERY_COUNT);
        return returned instanceof Number n && n.longValue() >= 0 ? n.longValue() + 1 : 0;
    }

    private static long maxTag(List<Delivery> deliveries) {
        long max = -1;
        for (Delivery d : deliveries) {
            max = Math.max(max, d.getEnvelope().getDeliveryTag());
        }
        return max;
    }

    private synchronized void closeQuietly() {
        Channel ch = channel;
        if (ch != null && ch.isOpen()) {
            try {
                ch.close();
            } catch (IOException | TimeoutException | RuntimeException e) {
                abortQuietly(ch);
            }
        }
        Connection owned = ownedConnection;
        if (owned != null && owned.isOpen()) {
            try {
                owned.close();
            } catch (IOException | RuntimeException e) {
                owned.abort();
            }
        }
    }

    private static void abortQuietly(Channel ch) {
        try {
            ch.abort();
        } catch (IOException | RuntimeException e) {
            // Closing anyway.
        }
    }

    /** Receives deliveries on the client's dispatch thread and hands them to the loop. */
    private final class Subscription extends DefaultConsumer {
        Subscription(Channel channel) {
            super(channel);
        }

        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            arrived.add(new Delivery(envelope, properties, body));
        }

        @Override
        public void handleCancel(String tag) {
            // The broker cancelled the subscription (queue deleted, node lost): nothing more will arrive.
            LOG.log(System.Logger.Level.WARNING, "the broker cancelled consumer " + consumerName() + " on queue '" + queue + "'");
            gone = new IllegalStateException("the broker cancelled the subscription to queue '" + queue + "'");
        }

        @Override
        public void handleShutdownSignal(String tag, ShutdownSignalException signal) {
            boolean recovers = getChannel() instanceof Recoverable && !signal.isInitiatedByApplication();
            // Deliveries taken before the channel went down cannot be acknowledged any more; the broker redelivers them.
            arrived.clear();
            if (!recovers) {
                gone = signal;
            }
        }
    }

    // ---- headers -----------------------------------------------------------------------------------------

    /** The delivery's headers and main properties as text, kept with the message if it is quarantined. */
    static Map<String, String> headersOf(Delivery d) {
        Map<String, String> out = new LinkedHashMap<>();
        AMQP.BasicProperties p = d.getProperties();
        if (p != null) {
            putIfPresent(out, TYPE, p.getType());
            putIfPresent(out, CONTENT_TYPE, p.getContentType());
            putIfPresent(out, CORRELATION_ID, p.getCorrelationId());
            if (p.getHeaders() != null) {
                p.getHeaders().forEach((name, value) -> {
                    if (name != null && !name.isEmpty() && value != null) {
                        out.put(name, value instanceof byte[] ? new String((byte[]) value, StandardCharsets.UTF_8) : value.toString());
                    }
                });
            }
        }
        if (d.getEnvelope() != null) {
            putIfPresent(out, EXCHANGE, d.getEnvelope().getExchange());
            putIfPresent(out, ROUTING_KEY, d.getEnvelope().getRoutingKey());
        }
        return out;
    }

    private static void putIfPresent(Map<String, String> out, String name, String value) {
        if (value != null && !value.isEmpty()) {
            out.put(name, value);
        }
    }

    /**
     * A delivery rebuilt from the quarantined body, headers and main properties (message id, type,
     * content type, correlation id); its envelope has delivery tag 0 and is marked redelivered. The
     * message was acknowledged when it was quarantined.
     */
    @Override
    protected Delivery rebuild(InboxMessage m) {
        Map<String, Object> headers = new LinkedHashMap<>();
        m.headers().forEach((name, value) -> {
            if (!name.startsWith("amqp.")) {
                headers.put(name, value);
            }
        });
        Map<String, String> h = m.headers();
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .messageId(m.id())
                .type(h.get(TYPE))
                .contentType(h.get(CONTENT_TYPE))
                .correlationId(h.get(CORRELATION_ID))
                .headers(headers)
                .deliveryMode(2)
                .build();
        Envelope envelope = new Envelope(0, true, h.getOrDefault(EXCHANGE, ""), h.getOrDefault(ROUTING_KEY, queue));
        return new Delivery(envelope, props, m.payload());
    }

    // ---- settings ------------------------------------------------------------------------------------------

    /** A test's look at a batch after the inbox committed and before the acknowledgements (to "kill" the consumer there). */
    @FunctionalInterface
    interface AckHook {
        AckHook NONE = (channel, batch) -> { };

        void beforeAck(Channel channel, List<Delivery> batch) throws Exception;
    }

    /**
     * Settings of a {@link RabbitInboxConsumer}: the broker's own here, the ones every consumer has in
     * {@link ConsumerBuilder}. Each setter validates its value.
     */
    public static final class Builder extends ConsumerBuilder<Delivery, Builder> {
        private Connection connection;
        private ConnectionFactory connectionFactory;
        private String queue;
        private int prefetch = 250;
        private AckHook beforeAck = AckHook.NONE;

        private Builder(Inbox inbox) {
            super(inbox, RabbitMessageIds.standard());
        }

        /** The connection to open the consumer's channel on; the application keeps owning it. Either this or {@link #connectionFactory}. */
        public Builder connection(Connection connection) {
            this.connection = Objects.requireNonNull(connection, "connection is null");
            this.connectionFactory = null;
            return this;
        }

        /** A factory for a connection of the consumer's own, closed with the consumer. Either this or {@link #connection}. */
        public Builder connectionFactory(ConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory is null");
            this.connection = null;
            return this;
        }

        /** The queue to consume; it must exist. 1–255 characters. Required. */
        public Builder queue(String queue) {
            if (queue == null || queue.isEmpty() || queue.getBytes(StandardCharsets.UTF_8).length > 255) {
                throw new IllegalArgumentException("queue must have 1-255 bytes, was "
                        + (queue == null ? "null" : queue.isEmpty() ? "empty" : queue.getBytes(StandardCharsets.UTF_8).length + " bytes"));
            }
            this.queue = queue;
            return this;
        }

        /**
         * Unacknowledged deliveries the broker sends ahead ({@code basic.qos}), which is also the
         * largest batch: 1–10000, default 250.
         */
        public Builder prefetch(int prefetch) {
            if (prefetch < 1 || prefetch > 10_000) {
                throw new IllegalArgumentException("prefetch must be 1-10000, was " + prefetch);
            }
            this.prefetch = prefetch;
            return this;
        }

        Builder beforeAck(AckHook hook) {
            this.beforeAck = Objects.requireNonNull(hook, "hook is null");
            return this;
        }

        /** @throws IllegalStateException naming what is missing */
        public RabbitInboxConsumer build() {
            List<String> missing = new ArrayList<>();
            if (connection == null && connectionFactory == null) {
                missing.add("connection or connectionFactory");
            }
            if (queue == null) {
                missing.add("queue");
            }
            if (consumerName() == null) {
                missing.add("consumerName");
            }
            if (handler() == null) {
                missing.add("handler");
            }
            if (!missing.isEmpty()) {
                throw new IllegalStateException("RabbitInboxConsumer needs " + String.join(", ", missing));
            }
            return new RabbitInboxConsumer(this);
        }
    }
}
