package dev.idem.inbox.consumer;

import java.util.Objects;

/**
 * Finds the id that identifies a message across redeliveries and producer retries: the key the inbox
 * deduplicates on. It must be assigned by the producer once per logical message (an outbox's stable
 * id, a UUID made before the first send) and be the same on every publish of that message; the inbox
 * accepts 1–255 characters without control characters or unpaired surrogates
 * ({@link dev.idem.inbox.InboxMessage#checkId}).
 *
 * <p>Returning {@code null} (or an empty id), throwing, or returning an id the inbox does not accept
 * means the message cannot be deduplicated: the consumer refuses it (RabbitMQ and NATS: rejected or
 * terminated so the broker does not redeliver it; Kafka: counted as a failed attempt under its
 * coordinates until it is quarantined). Each broker module offers its standard extractors.
 *
 * @param <M> the broker client's message type
 */
@FunctionalInterface
public interface MessageIdExtractor<M> {

    /** The message's id, or {@code null} if it carries none. */
    String messageId(M message);

    /** This extractor's id, or {@code other}'s where this one finds none. */
    default MessageIdExtractor<M> orElse(MessageIdExtractor<? super M> other) {
        Objects.requireNonNull(other, "other is null");
        return message -> {
            String id = messageId(message);
            return id == null || id.isEmpty() ? other.messageId(message) : id;
        };
    }
}
