package dev.idem.inbox;

import java.sql.Connection;

/**
 * A consumer's work for one message, on the inbox's transaction. It must use only the given
 * connection and must not commit, roll back or change its auto-commit mode: the inbox commits the
 * work together with the message's claim, or rolls both back. Throwing any exception rolls back and
 * counts a failed attempt.
 *
 * <p>The inbox may run a handler more than once for one delivery (a batch that fails falls back to
 * one transaction per message); every run but the committed one is rolled back, so effects outside
 * the connection (HTTP calls, broker sends) do not belong here: write them to the outbox.
 */
@FunctionalInterface
public interface InboxHandler {
    void handle(Connection connection, InboxMessage message) throws Exception;
}
