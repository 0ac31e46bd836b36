package dev.idem.outbox;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * An event from the outbox as a relay hands it to the {@link OutboxPublisher}. Its
 * {@link #messageId()} is assigned once, when the event is appended, and is the same on every
 * publish of this event: send it as the broker's message id (Kafka header, AMQP {@code message-id},
 * {@code Nats-Msg-Id}) so consumers deduplicate a republished event with their inbox. Immutable; the
 * payload is copied in and out.
 */
public final class OutboxMessage {
    private final UUID messageId;
    private final String aggregateType;
    private final String aggregateId;
    private final long sequence;
    private final String eventType;
    private final byte[] payload;
    private final Map<String, String> headers;
    private final Instant createdAt;
    private final int attempts;

    OutboxMessage(UUID messageId, String aggregateType, String aggregateId, long sequence, String eventType,
            byte[] payload, Map<String, String> headers, Instant createdAt, int attempts) {
        this.messageId = messageId;
        this.aggregateType = aggregateType;
        this.aggregateId = aggregateId;
        this.sequence = sequence;
        this.eventType = eventType;
        this.payload = payload;
        this.headers = headers;
        this.createdAt = createdAt;
        this.attempts = attempts;
    }

    /** The stable id: the same on every publish of this event. */
    public UUID messageId() {
        return messageId;
    }

    public String aggregateType() {
        return aggregateType;
    }

    public String aggregateId() {
        return aggregateId;
    }

    /** 1, 2, 3, … per aggregate, in the order the events were committed; no gaps. */
    public long sequence() {
        return sequence;
    }

    public String eventType() {
        return eventType;
    }

    /** A copy of the payload. */
    public byte[] payload() {
        return payload.clone();
    }

    public int payloadLength() {
        return payload.length;
    }

    /** Unmodifiable, in the order appended. */
    public Map<String, String> headers() {
        return headers;
    }

    /** When the event was appended, on the database's clock. */
    public Instant createdAt() {
        return createdAt;
    }

    /** Failed publish attempts before this one: 0 on the first publish. */
    public int attempts() {
        return attempts;
    }

    /** Shows the id, aggregate, sequence and type; never the payload. */
    @Override
    public String toString() {
        return "OutboxMessage[" + messageId + ", " + aggregateType + "/" + aggregateId + "#" + sequence + ", type=" + eventType
                + ", payload=" + payload.length + " bytes" + (attempts > 0 ? ", attempts=" + attempts : "") + "]";
    }
}
