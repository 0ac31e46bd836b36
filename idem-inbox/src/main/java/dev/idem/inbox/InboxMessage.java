package dev.idem.inbox;

import dev.idem.jdbc.support.MessageHeaders;
import java.util.Map;
import java.util.Objects;

/**
 * A delivered message as the inbox sees it: the id that identifies it across redeliveries (Kafka: a
 * producer-assigned id header, or topic/partition/offset; AMQP: {@code message-id}; NATS:
 * {@code Nats-Msg-Id}), and optionally its payload and headers, which the inbox keeps only if the
 * message is quarantined, so that it can be inspected and replayed. Immutable; the payload is copied
 * in and out.
 */
public final class InboxMessage {
    private static final byte[] EMPTY = new byte[0];

    private final String id;
    private final byte[] payload;
    private final Map<String, String> headers;

    private InboxMessage(String id, byte[] payload, Map<String, String> headers) {
        this.id = InboxNames.checkMessageId(id);
        this.payload = payload;
        this.headers = headers;
    }

    /** A message known by its id only (an empty payload and no headers are quarantined with it). */
    public static InboxMessage of(String id) {
        return new InboxMessage(id, EMPTY, Map.of());
    }

    public static InboxMessage of(String id, byte[] payload) {
        return of(id, payload, Map.of());
    }

    /**
     * @param id      see {@link #checkId}
     * @param payload the message body, never null (use an empty array)
     * @param headers names non-empty, values non-null; kept in order
     */
    public static InboxMessage of(String id, byte[] payload, Map<String, String> headers) {
        Objects.requireNonNull(payload, "payload is null (use an empty array)");
        return new InboxMessage(id, payload.clone(), MessageHeaders.copyOf(headers));
    }

    /**
     * The inbox's rule for message ids, for adapters that must judge an id before handing it over:
     * 1–255 UTF-16 units, no control characters, no unpaired surrogates (so every database stores the
     * id exactly as given).
     *
     * @return {@code id}
     * @throws IllegalArgumentException naming the rule it breaks; the message never quotes the id
     */
    public static String checkId(String id) {
        return InboxNames.checkMessageId(id);
    }

    public String id() {
        return id;
    }

    /** A copy of the payload. */
    public byte[] payload() {
        return payload.clone();
    }

    public int payloadLength() {
        return payload.length;
    }

    /** Unmodifiable, in the order given. */
    public Map<String, String> headers() {
        return headers;
    }

    byte[] payloadUnsafe() {
        return payload;
    }

    /** Shows the id, header names and payload length; never the payload. */
    @Override
    public String toString() {
        return "InboxMessage[id=" + id + ", headers=" + headers.keySet() + ", payload=" + payload.length + " bytes]";
    }
}
