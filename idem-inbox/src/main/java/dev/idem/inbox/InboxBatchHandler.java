package dev.idem.inbox;

import java.sql.Connection;
import java.util.List;

/**
 * A consumer's work for all new messages of a batch at once, on the inbox's transaction, so that it
 * can write their rows with one JDBC batch ({@code addBatch}/{@code executeBatch}) instead of a round
 * trip per message. Same rules as {@link InboxHandler}: only the given connection, no commit, no
 * rollback, no change of auto-commit; throwing rolls the batch back.
 *
 * <p>After a failure the inbox processes each message of the batch on its own, calling this handler
 * with a list of one message per transaction, so the failing message is counted and the rest commit.
 */
@FunctionalInterface
public interface InboxBatchHandler {
    /**
     * @param messages the batch's new messages (not seen before, each once), in the order given; never empty;
     *                 unmodifiable
     */
    void handle(Connection connection, List<InboxMessage> messages) throws Exception;
}
