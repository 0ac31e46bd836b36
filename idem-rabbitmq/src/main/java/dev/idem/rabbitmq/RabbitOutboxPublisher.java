package dev.idem.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxPublisher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * An {@link OutboxPublisher} for an {@code OutboxRelay}: publishes each outbox event to an exchange
 * on a channel in <b>publisher-confirms</b> mode and returns only once the broker confirmed it, so
 * the relay marks an event sent only after RabbitMQ took responsibility for it.
 *
 * <pre>{@code
 * RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection).exchange("payments").routingKey("payment.events").build();
 * OutboxRelay relay = OutboxRelay.builder(outbox, publisher).build().start();
 * }</pre>
 *
 * <p>Each message is persistent (delivery mode 2) with {@code message-id} = the event's stable
 * outbox id (the same on every republish, so an {@link RabbitInboxConsumer} deduplicates it),
 * {@code type} = the event type, {@code timestamp} = when it was appended, and the headers
 * {@value #AGGREGATE_TYPE}, {@value #AGGREGATE_ID}, {@value #SEQUENCE} (a long) and
 * {@value #EVENT_TYPE}, after the event's own headers (a {@code content-type} header also sets the
 * property).
 *
 * <p>A publish fails (and the relay retries it with backoff) when the broker nacks it, when no
 * confirm arrives within {@code confirmTimeout} (the channel is then closed and reopened on the next
 * publish), or, with {@code mandatory} (the default), when no queue is bound to take it: a confirmed
 * but unroutable message would otherwise be lost without a trace. Thread-safe: publishes are
 * serialized on one channel.
 */
public final class RabbitOutboxPublisher implements OutboxPublisher, AutoCloseable {
    public static final String AGGREGATE_TYPE = "idem-aggregate-type";
    public static final String AGGREGATE_ID = "idem-aggregate-id";
    public static final String SEQUENCE = "idem-sequence";
    public static final String EVENT_TYPE = "idem-event-type";

    private final Connection connection;
    private final String exchange;
    private final Function<OutboxMessage, String> routingKey;
    private final Duration confirmTimeout;
    private final boolean mandatory;
    private final Set<String> returned = ConcurrentHashMap.newKeySet();
    private Channel channel;

    private RabbitOutboxPublisher(Builder b) {
        this.connection = b.connection;
        this.exchange = b.exchange;
        this.routingKey = b.routingKey;
        this.confirmTimeout = b.confirmTimeout;
        this.mandatory = b.mandatory;
    }

    public static Builder builder(Connection connection) {
        return new Builder(connection);
    }

    /**
     * Publishes and waits for the broker's confirm.
     *
     * @throws IOException          the broker nacked the message, returned it as unroutable, or the channel failed
     * @throws TimeoutException     no confirm within {@code confirmTimeout}
     * @throws InterruptedException interrupted while waiting (the relay is closing)
     */
    @Override
    public synchronized void publish(OutboxMessage message) throws IOException, TimeoutException, InterruptedException {
        Objects.requireNonNull(message, "message is null");
        String key = routingKey.apply(message);
        if (key == null) {
            throw new IllegalStateException("the routing key function returned null for event " + message.messageId());
        }
        String id = message.messageId().toString();
        Channel ch = channel();
        returned.remove(id);
        ch.basicPublish(exchange, key, mandatory, properties(message), message.payload());
        // Dies (closes the channel) on a nack or a timeout; the next publish opens a new channel.
        ch.waitForConfirmsOrDie(confirmTimeout.toMillis());
        // The broker sends basic.return before the confirm, and the client runs return listeners as it reads frames.
        if (returned.remove(id)) {
            throw new IOException("event " + id + " was returned unroutable by exchange '" + exchange + "' with routing key '" + key
                    + "': no queue is bound for it");
        }
    }

    /** Closes the publisher's channel (not the connection). */
    @Override
    public synchronized void close() {
        Channel ch = channel;
        channel = null;
        if (ch != null && ch.isOpen()) {
            try {
                ch.close();
            } catch (IOException | TimeoutException | RuntimeException e) {
                abortQuietly(ch);
            }
        }
    }

    public String exchange() {
        return exchange;
    }

    @Override
    public String toString() {
        return "RabbitOutboxPublisher[exchange='" + exchange + "', confirmTimeout=" + confirmTimeout + ", mandatory=" + mandatory + "]";
    }

    private Channel channel() throws IOException {
        if (channel != null && channel.isOpen()) {
            return channel;
        }
        Channel ch = connection.createChannel();
        if (ch == null) {
            throw new IOException("the connection has no free channel");
        }
        ch.confirmSelect();
        ch.addReturnListener((ReturnListener) (replyCode, replyText, ex, key, props, body) -> {
            if (props != null && props.getMessageId() != null) {
                returned.add(props.getMessageId());
            }
        });
        channel = ch;
        return ch;
    }

    static AMQP.BasicProperties properties(OutboxMessage m) {
        Map<String, Object> headers = new LinkedHashMap<>(m.headers());
        headers.put(AGGREGATE_TYPE, m.aggregateType());
        headers.put(AGGREGATE_ID, m.aggregateId());
        headers.put(SEQUENCE, m.sequence());
        headers.put(EVENT_TYPE, m.eventType());
        String contentType = m.headers().get("content-type");
        return new AMQP.BasicProperties.Builder()
                .messageId(m.messageId().toString())
                .type(m.eventType())
                .contentType(contentType)
                .deliveryMode(2)
                .timestamp(Date.from(m.createdAt()))
                .headers(headers)
                .build();
    }

    /** Settings of a {@link RabbitOutboxPublisher}; each setter validates its value. */
    public static final class Builder {
        private final Connection connection;
        private String exchange = "";
        private Function<OutboxMessage, String> routingKey;
        private Duration confirmTimeout = Duration.ofSeconds(10);
        private boolean mandatory = true;

        private Builder(Connection connection) {
            this.connection = Objects.requireNonNull(connection, "connection is null");
        }

        /** The exchange to publish to; default {@code ""}, the default exchange (routing key = queue name). At most 255 bytes. */
        public Builder exchange(String exchange) {
            Objects.requireNonNull(exchange, "exchange is null");
            if (exchange.getBytes(StandardCharsets.UTF_8).length > 255) {
                throw new IllegalArgumentException("exchange must have at most 255 bytes, was " + exchange.getBytes(StandardCharsets.UTF_8).length);
            }
            this.exchange = exchange;
            return this;
        }

        /** One routing key for every event (at most 255 bytes). Either this or {@link #routingKey(Function)} is required. */
        public Builder routingKey(String routingKey) {
            Objects.requireNonNull(routingKey, "routingKey is null");
            if (routingKey.getBytes(StandardCharsets.UTF_8).length > 255) {
                throw new IllegalArgumentException("routingKey must have at most 255 bytes, was " + routingKey.getBytes(StandardCharsets.UTF_8).length);
            }
            this.routingKey = m -> routingKey;
            return this;
        }

        /** A routing key per event, e.g. {@code m -> m.aggregateType() + "." + m.eventType()}. */
        public Builder routingKey(Function<OutboxMessage, String> routingKey) {
            this.routingKey = Objects.requireNonNull(routingKey, "routingKey is null");
            return this;
        }

        /** How long to wait for the broker's confirm: 1 ms – 10 min, default 10 s. */
        public Builder confirmTimeout(Duration confirmTimeout) {
            Objects.requireNonNull(confirmTimeout, "confirmTimeout is null");
            if (confirmTimeout.toMillis() < 1 || confirmTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("confirmTimeout must be 1 ms - 10 min, was " + confirmTimeout);
            }
            this.confirmTimeout = confirmTimeout;
            return this;
        }

        /**
         * Default true: an event no queue takes is returned by the broker and the publish fails (the
         * relay retries it); false lets the broker drop it silently.
         */
        public Builder mandatory(boolean mandatory) {
            this.mandatory = mandatory;
            return this;
        }

        /** @throws IllegalStateException if no routing key was set */
        public RabbitOutboxPublisher build() {
            if (routingKey == null) {
                throw new IllegalStateException("RabbitOutboxPublisher needs a routingKey");
            }
            return new RabbitOutboxPublisher(this);
        }
    }

    private static void abortQuietly(Channel ch) {
        try {
            ch.abort();
        } catch (IOException | RuntimeException e) {
            // Closing anyway.
        }
    }
}
