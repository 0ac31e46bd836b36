package dev.idem.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import dev.idem.inbox.consumer.ConsumerBuilder;
import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.ConsumerLoop;
import dev.idem.inbox.consumer.InboxConsumer;
import dev.idem.inbox.Inbox;
import dev.idem.spi.Arguments;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
 * <p>{@link #start()} opens the consumer's own channel, sets the prefetch, subscribes with manual
 * acknowledgements (an {@link IOException} if the broker refuses, e.g. the queue does not exist, with
 * nothing left open) and starts the loop. The consumer opens its channel on the given connection (or on a connection it opens from a
 * {@link ConnectionFactory}, which it also closes). If the channel closes for good (an error, the
 * connection lost without automatic recovery, the queue deleted), the consumer stops and its
 * unacknowledged deliveries return to the queue; with automatic recovery the channel and the
 * subscription are recovered and deliveries from before the recovery are simply redelivered.
 */
public final class RabbitInboxConsumer extends InboxConsumer<Delivery, RabbitInboxConsumer> {
    /** Header names under which AMQP properties of a quarantined delivery are kept, for replay. */
    static final String TYPE = "amqp.type";
    static final String CONTENT_TYPE = "amqp.content-type";
    static final String CORRELATION_ID = "amqp.correlation-id";
    static final String ROUTING_KEY = "amqp.routing-key";
    static final String EXCHANGE = "amqp.exchange";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final String queue;
    private final int prefetch;
    private final RabbitChannelLoop channel;

    private RabbitInboxConsumer(Builder b, RabbitChannelLoop channel) {
        super(channel, CLOSE_TIMEOUT);
        this.queue = b.queue;
        this.prefetch = b.prefetch;
        this.channel = channel;
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
        Arguments.between("deliveryLimit", deliveryLimit, 1, 10_000);
        Map<String, Object> args = new HashMap<>();
        args.put("x-queue-type", "quorum");
        args.put("x-delivery-limit", deliveryLimit);
        return args;
    }

    @Override
    protected String threadName() {
        return "idem-rabbitmq-" + consumerName() + "-" + queue;
    }

    public String queue() {
        return queue;
    }

    public int prefetch() {
        return prefetch;
    }

    /** Deliveries this consumer returned to the queue (nack with requeue) so far. */
    public long requeued() {
        return channel.requeued.get();
    }

    @Override
    public String toString() {
        return "RabbitInboxConsumer[queue=" + queue + ", consumer=" + consumerName() + ", prefetch=" + prefetch
                + ", running=" + isRunning() + "]";
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
        Connection connection;
        ConnectionFactory connectionFactory;
        String queue;
        int prefetch = 250;
        AckHook beforeAck = AckHook.NONE;

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
            this.prefetch = Arguments.between("prefetch", prefetch, 1, 10_000);
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
            return new RabbitInboxConsumer(this, new RabbitChannelLoop(this));
        }
    }
}
