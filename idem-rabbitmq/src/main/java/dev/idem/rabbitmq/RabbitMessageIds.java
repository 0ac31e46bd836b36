package dev.idem.rabbitmq;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.idem.inbox.consumer.MessageIdExtractor;
import java.util.Map;

/**
 * Where a RabbitMQ delivery's message id is found. A delivery without one is refused: rejected without
 * requeue, so the queue's dead-letter exchange takes it if it has one.
 */
public final class RabbitMessageIds {
    private RabbitMessageIds() {
    }

    /** The AMQP {@code message-id} property. */
    public static MessageIdExtractor<Delivery> property() {
        return delivery -> delivery.getProperties() == null ? null : delivery.getProperties().getMessageId();
    }

    /** A header's value as text ({@code String}, AMQP long string, or a number). */
    public static MessageIdExtractor<Delivery> header(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("header name must not be empty, was " + (name == null ? "null" : "''"));
        }
        return delivery -> {
            Map<String, Object> headers = delivery.getProperties() == null ? null : delivery.getProperties().getHeaders();
            Object value = headers == null ? null : headers.get(name);
            if (value instanceof String || value instanceof LongString || value instanceof Number) {
                return value.toString();
            }
            return null;
        };
    }

    /**
     * The default: the AMQP {@code message-id} property, else a {@code message-id} header (set by
     * clients and bridges that cannot set the property).
     */
    public static MessageIdExtractor<Delivery> standard() {
        return property().orElse(header("message-id"));
    }
}
