package dev.idem.outbox;

/**
 * Sends outbox events to a broker; the one piece a broker adapter supplies to an {@link OutboxRelay}.
 *
 * <p>{@link #publish} returns only once the broker has accepted the message durably (Kafka: the
 * send's future completed with {@code acks=all}; RabbitMQ: the publisher confirm; NATS JetStream:
 * the {@code PubAck}), and throws if it did not: the relay then retries the event with backoff, and
 * the aggregate's later events wait. Send {@link OutboxMessage#messageId()} as the broker's message
 * id. The relay calls a publisher from one thread at a time per relay, one aggregate's events in
 * sequence order; a publisher shared by several relays must be thread-safe.
 */
@FunctionalInterface
public interface OutboxPublisher {
    void publish(OutboxMessage message) throws Exception;
}
