package dev.idem.rabbitmq;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import java.util.Map;
import java.util.Objects;

/**
 * Finds the id that identifies a message across redeliveries and producer retries: the key the
 * inbox deduplicates on. It must be assigned by the producer once per logical message (an outbox's
 * stable id, a UUID made before the first send) and be the same on every publish of that message.
 *
 * <p>Returning {@code null} (or an empty id) means the delivery has no id: the consumer refuses it
 * (rejects it without requeue, so the queue's dead-letter exchange takes it if it has one) instead
 * of processing a message it could not deduplicate.
 */
@FunctionalInterface
public interface MessageIdExtractor {

    /** The delivery's message id, or {@code null} if it carries none. */
    String messageId(Delivery delivery);

    /** The AMQP {@code message-id} property. */
    static MessageIdExtractor property() {
        return delivery -> delivery.getProperties() == null ? null : delivery.getProperties().getMessageId();
    }

    /** A header's value as text ({@code String}, AMQP long string, or a number). */
    static MessageIdExtractor header(String name) {
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
    static MessageIdExtractor standard() {
        return property().orElse(header("message-id"));
    }

    /** This extractor's id, or {@code other}'s where this one finds none. */
    default MessageIdExtractor orElse(MessageIdExtractor other) {
        Objects.requireNonNull(other, "other is null");
        return delivery -> {
            String id = messageId(delivery);
            return id == null || id.isEmpty() ? other.messageId(delivery) : id;
        };
    }
}
