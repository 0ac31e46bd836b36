package dev.idem.rabbitmq;

import com.rabbitmq.client.Delivery;
import java.sql.Connection;

/**
 * A consumer's work for one delivery, on the inbox's transaction. It must use only the given
 * connection and must not commit, roll back or change its auto-commit mode: the inbox commits the
 * work together with the message's claim, and the delivery is acknowledged only after that commit.
 * Throwing rolls the work back and counts a failed attempt.
 *
 * <p>A handler may run more than once for one message (a batch that fails is redone one message
 * per transaction), and every run but the committed one is rolled back: effects outside the
 * database (HTTP calls, publishing) belong in the outbox. Do not acknowledge or reject the delivery
 * here; the consumer does.
 */
@FunctionalInterface
public interface RabbitMessageHandler {
    void handle(Connection connection, Delivery delivery) throws Exception;
}
