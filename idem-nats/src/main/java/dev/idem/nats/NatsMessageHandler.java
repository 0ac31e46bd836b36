package dev.idem.nats;

import io.nats.client.Message;
import java.sql.Connection;

/**
 * A consumer's work for one JetStream message, on the inbox's transaction. It must use only the
 * given connection and must not commit, roll back or change its auto-commit mode: the inbox commits
 * the work together with the message's claim, and the message is acknowledged only after that
 * commit. Throwing rolls the work back and counts a failed attempt.
 *
 * <p>A handler may run more than once for one message (a batch that fails is redone one message per
 * transaction), and every run but the committed one is rolled back: effects outside the database
 * belong in the outbox. Do not ack, nak or term the message here; the consumer does.
 */
@FunctionalInterface
public interface NatsMessageHandler {
    void handle(Connection connection, Message message) throws Exception;
}
