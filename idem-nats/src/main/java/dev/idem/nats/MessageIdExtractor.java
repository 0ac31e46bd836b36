package dev.idem.nats;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import java.util.List;
import java.util.Objects;

/**
 * Finds the id that identifies a message across redeliveries and producer retries: the key the
 * inbox deduplicates on. Returning {@code null} (or an empty id) means the message has none: the
 * consumer refuses it ({@code term()}, so JetStream stops redelivering it).
 */
@FunctionalInterface
public interface MessageIdExtractor {
    /** The header JetStream deduplicates publishes on, within the stream's duplicate window. */
    String NATS_MSG_ID = "Nats-Msg-Id";

    /** The message's id, or {@code null} if it carries none. */
    String messageId(Message message);

    /** The {@code Nats-Msg-Id} header: the producer's id, the same on every retry of a publish. */
    static MessageIdExtractor natsMsgId() {
        return header(NATS_MSG_ID);
    }

    /** A header's first value. */
    static MessageIdExtractor header(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("header name must not be empty, was " + (name == null ? "null" : "''"));
        }
        return message -> {
            Headers headers = message.hasHeaders() ? message.getHeaders() : null;
            List<String> values = headers == null ? null : headers.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        };
    }

    /**
     * {@code <stream>:<stream sequence>}: stable across redeliveries of one stored message, but a
     * producer's retry that the stream accepted again (outside its duplicate window) gets a new one.
     */
    static MessageIdExtractor streamSequence() {
        return message -> message.isJetStream()
                ? message.metaData().getStream() + ":" + message.metaData().streamSequence()
                : null;
    }

    /** The default: {@code Nats-Msg-Id}, else the stream sequence. */
    static MessageIdExtractor standard() {
        return natsMsgId().orElse(streamSequence());
    }

    /** This extractor's id, or {@code other}'s where this one finds none. */
    default MessageIdExtractor orElse(MessageIdExtractor other) {
        Objects.requireNonNull(other, "other is null");
        return message -> {
            String id = messageId(message);
            return id == null || id.isEmpty() ? other.messageId(message) : id;
        };
    }
}
