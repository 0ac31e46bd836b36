package dev.idem.inbox.consumer;

import java.sql.Connection;

/**
 * A broker consumer's work for one message, on the inbox's transaction. It must use only the given
 * connection and must not commit, roll back or change its auto-commit mode: the inbox commits the
 * work together with the message's claim, and the broker hears of the message only after that commit.
 * Throwing rolls the work back and counts a failed attempt.
 *
 * <p>A handler may run more than once for one message (a batch that fails is redone one message per
 * transaction), and every run but the committed one is rolled back: effects outside the database
 * (HTTP calls, publishing) belong in the outbox. Do not acknowledge or reject the message here; the
 * consumer does.
 *
 * @param <M> the broker client's message type (a Kafka record, a RabbitMQ delivery, a JetStream message)
 */
@FunctionalInterface
public interface MessageHandler<M> {
    void handle(Connection connection, M message) throws Exception;
}
