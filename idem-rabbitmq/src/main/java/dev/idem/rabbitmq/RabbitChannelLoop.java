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
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.consumer.ConsumerLoop;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A RabbitMQ consumer's channel as its {@link ConsumerLoop}: the subscription with manual acks and
 * {@code basic.qos(prefetch)}, the deliveries it hands over, and the answers. Settled deliveries are
 * collected and acknowledged with one multiple-ack after each batch; failed ones are nack'ed (requeued)
 * one by one as they come.
 */
final class RabbitChannelLoop extends ConsumerLoop<Delivery> {
    private static final System.Logger LOG = System.getLogger("dev.idem.rabbitmq");
    /** The header a quorum queue sets on a redelivery: how many deliveries of the message came back before. */
    static final String DELIVERY_COUNT = "x-delivery-count";

    private final Connection givenConnection;
    private final ConnectionFactory connectionFactory;
    private final String queue;
    private final int prefetch;
    private final RabbitInboxConsumer.AckHook beforeAck;

    private final BlockingQueue<Delivery> arrived = new LinkedBlockingQueue<>();
    final AtomicLong requeued = new AtomicLong();
    private volatile RuntimeException gone;
    private Connection ownedConnection;
    private volatile Channel channel;
    private volatile String consumerTag;
    private long lastAck = -1;
    private int acks;

    RabbitChannelLoop(RabbitInboxConsumer.Builder b) {
        super(b, "queue '" + b.queue + "'");
        this.givenConnection = b.connection;
        this.connectionFactory = b.connectionFactory;
        this.queue = b.queue;
        this.prefetch = b.prefetch;
        this.beforeAck = b.beforeAck;
    }

    /**
     * Opens the channel, sets the prefetch and subscribes with manual acknowledgements.
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
            Channel ch = connection.createChannel();
            if (ch == null) {
                throw new IOException("the connection has no free channel");
            }
            channel = ch;
            ch.basicQos(prefetch);
            consumerTag = ch.basicConsume(queue, false, new Subscription(ch));
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
    protected List<Delivery> fetch() throws InterruptedException {
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
    protected byte[] body(Delivery d) {
        return d.getBody();
    }

    @Override
    protected Map<String, String> headers(Delivery d) {
        return headersOf(d);
    }

    /**
     * A quorum queue's {@code x-delivery-count} (the earlier deliveries given back, also by a consumer
     * that died) plus this one; 0 on a queue that keeps no count (a classic queue).
     */
    @Override
    protected long deliveries(Delivery d) {
        return deliveryCount(d.getProperties().getHeaders());
    }

    @Override
    protected String missingIdHint() {
        return "no AMQP message-id property and nothing the consumer's MessageIdExtractor accepts; "
                + "publish it with a message id that stays the same on every retry";
    }

    @Override
    protected String describe(Delivery d) {
        return "a delivery on queue '" + queue + "' (delivery tag " + d.getEnvelope().getDeliveryTag() + ")";
    }

    @Override
    protected String refusal() {
        return "It was rejected without requeue (dead-lettered if the queue has a dead-letter exchange).";
    }

    @Override
    protected void refuse(Delivery d, String reason) throws IOException {
        channel.basicReject(d.getEnvelope().getDeliveryTag(), false);
    }

    @Override
    protected void redeliverAll(List<Delivery> claimed) throws IOException {
        channel.basicNack(maxTag(claimed), true, true);
        requeued.addAndGet(claimed.size());
    }

    @Override
    protected void committed(List<Delivery> claimed) throws Exception {
        beforeAck.beforeAck(channel, claimed);
    }

    @Override
    protected void ack(Delivery d) {
        lastAck = Math.max(lastAck, d.getEnvelope().getDeliveryTag());
        acks++;
    }

    @Override
    protected void quarantined(Delivery d) {
        ack(d);  // the inbox keeps the message; the queue may forget it
    }

    @Override
    protected void redeliver(Delivery d) throws IOException {
        channel.basicNack(d.getEnvelope().getDeliveryTag(), false, true);
        requeued.incrementAndGet();
    }

    @Override
    protected void afterFetch() throws IOException {
        if (acks > 0) {
            // Every delivery up to lastAck that is still unacknowledged on this channel belongs to this
            // batch and is settled: the refused and failed ones were answered above, earlier batches before.
            channel.basicAck(lastAck, true);
            acknowledged(acks);
            acks = 0;
        }
    }

    @Override
    protected void wakeup() {
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
    protected void release(Throwable failure) {
        // Deliveries taken but not processed cannot be acknowledged any more; the broker redelivers them.
        arrived.clear();
        closeQuietly();
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
                .type(h.get(RabbitInboxConsumer.TYPE))
                .contentType(h.get(RabbitInboxConsumer.CONTENT_TYPE))
                .correlationId(h.get(RabbitInboxConsumer.CORRELATION_ID))
                .headers(headers)
                .deliveryMode(2)
                .build();
        Envelope envelope = new Envelope(0, true, h.getOrDefault(RabbitInboxConsumer.EXCHANGE, ""),
                h.getOrDefault(RabbitInboxConsumer.ROUTING_KEY, queue));
        return new Delivery(envelope, props, m.payload());
    }

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
            putIfPresent(out, RabbitInboxConsumer.TYPE, p.getType());
            putIfPresent(out, RabbitInboxConsumer.CONTENT_TYPE, p.getContentType());
            putIfPresent(out, RabbitInboxConsumer.CORRELATION_ID, p.getCorrelationId());
            if (p.getHeaders() != null) {
                p.getHeaders().forEach((name, value) -> {
                    if (name != null && !name.isEmpty() && value != null) {
                        out.put(name, value instanceof byte[] ? new String((byte[]) value, StandardCharsets.UTF_8) : value.toString());
                    }
                });
            }
        }
        if (d.getEnvelope() != null) {
            putIfPresent(out, RabbitInboxConsumer.EXCHANGE, d.getEnvelope().getExchange());
            putIfPresent(out, RabbitInboxConsumer.ROUTING_KEY, d.getEnvelope().getRoutingKey());
        }
        return out;
    }

    private static void putIfPresent(Map<String, String> out, String name, String value) {
        if (value != null && !value.isEmpty()) {
            out.put(name, value);
        }
    }
}
