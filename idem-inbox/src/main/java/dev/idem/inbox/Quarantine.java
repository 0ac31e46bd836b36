package dev.idem.inbox;

import dev.idem.spi.Arguments;
import dev.idem.spi.ListenerCalls;
import dev.idem.jdbc.support.MessageHeaders;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The administration of an {@link Inbox}'s quarantine, for operators: messages whose handler failed
 * the configured number of times wait here, with their payload, headers and last error, until they
 * are replayed after a fix or dropped. Obtained with {@link Inbox#quarantine()}; thread-safe.
 */
public final class Quarantine {
    private final Inbox inbox;
    private final InboxRows rows;
    private final SqlStatements sql;
    private final Duration retention;
    private final InboxListener listener;

    Quarantine(Inbox inbox, InboxRows rows, SqlStatements sql, Duration retention, InboxListener listener) {
        this.inbox = inbox;
        this.rows = rows;
        this.sql = sql;
        this.retention = retention;
        this.listener = listener;
    }

    /** Up to {@code limit} (1–10000) quarantined messages of {@code consumer}, oldest first failure first. */
    public List<QuarantinedMessage> list(String consumer, int limit) {
        InboxNames.checkConsumer(consumer);
        Arguments.between("limit", limit, 1, 10_000);
        return inbox.inTransaction("list quarantined", consumer, c -> {
            List<QuarantinedMessage> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("inbox_list_quarantined"))) {
                ps.setString(1, consumer);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(quarantined(consumer, rs));
                    }
                }
            }
            c.commit();
            return out;
        });
    }

    /** The quarantined message, if it is in the quarantine. */
    public Optional<QuarantinedMessage> find(String consumer, String messageId) {
        InboxNames.checkConsumer(consumer);
        InboxNames.checkMessageId(messageId);
        return inbox.inTransaction("find quarantined", consumer, c -> {
            Optional<QuarantinedMessage> found = find(c, consumer, messageId);
            c.commit();
            return found;
        });
    }

    /**
     * Processes a quarantined message once more, after a fix, with its stored payload and headers:
     * the handler's writes, the message's release from the quarantine and its inbox row (now
     * processed) commit in one transaction. If the handler throws again the message stays
     * quarantined with one more attempt counted.
     *
     * @return {@code PROCESSED}; {@code QUARANTINED} with the failure if the handler threw; or
     *         {@code DUPLICATE} if the message is not in the quarantine (never was, or was already
     *         replayed or dropped)
     */
    public InboxOutcome replay(String consumer, String messageId, InboxHandler handler) {
        InboxNames.checkConsumer(consumer);
        InboxNames.checkMessageId(messageId);
        Objects.requireNonNull(handler, "handler is null");
        return inbox.inTransaction("replay", consumer, c -> {
            // The update comes first: it locks the inbox row, so concurrent replays run one after the other.
            if (releaseQuarantined(c, consumer, messageId, Inbox.STATE_PROCESSED) == 0) {
                c.rollback();
                return InboxOutcome.duplicate(messageId);
            }
            Optional<QuarantinedMessage> found = find(c, consumer, messageId);
            if (found.isEmpty()) {
                // An inbox row in quarantine without its message: someone deleted it by hand. Release the row.
                c.commit();
                return InboxOutcome.duplicate(messageId);
            }
            QuarantinedMessage q = found.get();
            try {
                handler.handle(c, q.message());
                InboxTransaction.requireTransaction(c, consumer);
            } catch (Exception e) {
                InboxTransaction.rethrowLostRace(e);
                Transactions.rollbackQuietly(c, e);
                rows.update(c, "inbox_replay_failure", e.getClass().getName(), rows.errorText(e), consumer, messageId);
                c.commit();
                return InboxOutcome.quarantined(messageId, q.attempts() + 1, e);
            }
            rows.update(c, "inbox_quarantine_delete", consumer, messageId);
            c.commit();
            ListenerCalls.run("replayed", () -> listener.replayed(consumer, messageId));
            return InboxOutcome.processed(messageId);
        });
    }

    /**
     * Gives up on a quarantined message: removes it from the quarantine without running anything;
     * its later deliveries (until retention) answer {@code DUPLICATE}.
     *
     * @return whether the message was in the quarantine
     */
    public boolean drop(String consumer, String messageId) {
        InboxNames.checkConsumer(consumer);
        InboxNames.checkMessageId(messageId);
        return inbox.inTransaction("drop", consumer, c -> {
            if (releaseQuarantined(c, consumer, messageId, Inbox.STATE_DROPPED) == 0) {
                c.rollback();
                return false;
            }
            rows.update(c, "inbox_quarantine_delete", consumer, messageId);
            c.commit();
            ListenerCalls.run("dropped", () -> listener.dropped(consumer, messageId));
            return true;
        });
    }

    private int releaseQuarantined(Connection c, String consumer, String messageId, int newState) throws SQLException {
        return rows.update(c, "inbox_release_quarantined", newState, retention.toMillis(), consumer, messageId);
    }

    private Optional<QuarantinedMessage> find(Connection c, String consumer, String messageId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("inbox_find_quarantined"))) {
            ps.setString(1, consumer);
            ps.setString(2, messageId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(quarantined(consumer, rs)) : Optional.empty();
            }
        }
    }

    private static QuarantinedMessage quarantined(String consumer, ResultSet rs) throws SQLException {
        byte[] payload = rs.getBytes("payload");
        InboxMessage message = InboxMessage.of(rs.getString("message_id"), payload == null ? new byte[0] : payload,
                MessageHeaders.decode(rs.getString("headers")));
        return new QuarantinedMessage(consumer, message, rs.getInt("attempts"),
                Instant.ofEpochMilli(rs.getLong("first_seen")), Instant.ofEpochMilli(rs.getLong("last_seen")),
                rs.getString("error_class"), rs.getString("error_message"));
    }
}
