package dev.idem.nats;

import dev.idem.inbox.consumer.MessageIdExtractor;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import java.util.List;

/**
 * Where a JetStream message's id is found. A message without one is refused ({@code term()}, so
 * JetStream stops redelivering it).
 */
public final class NatsMessageIds {
    /** The header JetStream deduplicates publishes on, within the stream's duplicate window. */
    public static final String NATS_MSG_ID = "Nats-Msg-Id";

    private NatsMessageIds() {
    }

    /** The {@code Nats-Msg-Id} header: the producer's id, the same on every retry of a publish. */
    public static MessageIdExtractor<Message> natsMsgId() {
        return header(NATS_MSG_ID);
    }

    /** A header's first value. */
    public static MessageIdExtractor<Message> header(String name) {
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
    public static MessageIdExtractor<Message> streamSequence() {
        return message -> message.isJetStream()
                ? message.metaData().getStream() + ":" + message.metaData().streamSequence()
                : null;
    }

    /** The default: {@code Nats-Msg-Id}, else the stream sequence. */
    public static MessageIdExtractor<Message> standard() {
        return natsMsgId().orElse(streamSequence());
    }
}
