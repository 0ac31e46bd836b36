package dev.idem.inbox;

import dev.idem.spi.ListenerCalls;
import dev.idem.jdbc.support.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one transaction the inbox owns does with a message or a batch, on the connection
 * {@link Inbox} opened for it: claim the ids, run the handler, count a failure in a transaction of
 * its own after a rollback, run the broker's steps and commit, then tell the listener. The inbox
 * owns the transaction's boundaries and its retries; this class owns what happens inside.
 */
final class InboxTransaction {
    private final InboxRows rows;
    private final InboxListener listener;

    InboxTransaction(InboxRows rows, InboxListener listener) {
        this.rows = rows;
        this.listener = listener;
    }

    InboxOutcome process(Connection c, String consumer, InboxMessage message, InboxHandler handler, Inbox.BatchSteps steps)
            throws SQLException {
        String id = message.id();
        if (claimFirst(c, consumer, List.of(id)).isEmpty()) {
            InboxOutcome answer = rows.notClaimed(c, consumer, List.of(id)).get(id);
            boolean differs = payloadDiffers(c, consumer, message, answer);
            if (steps == Inbox.BatchSteps.NONE) {
                c.rollback();
            } else {
                // Settled without work: the broker's step (e.g. a stored position) still commits.
                steps.beforeCommit(c, List.of(id));
                c.commit();
            }
            report(consumer, answer, differs);
            return answer;
        }
        try {
            handler.handle(c, message);
        } catch (Exception e) {
            rethrowLostRace(e);
            Transactions.rollbackQuietly(c, e);
            return rows.countFailure(c, consumer, message, e, steps.deliveries(id));
        }
        requireTransaction(c, consumer);
        steps.beforeCommit(c, List.of(id));
        c.commit();
        ListenerCalls.run("processed", () -> listener.processed(consumer, id));
        return InboxOutcome.processed(id);
    }

    Map<String, InboxOutcome> batch(Connection c, String consumer, Map<String, InboxMessage> firsts, InboxBatchHandler handler,
                                       InboxHandler single, Inbox.BatchSteps steps) throws SQLException {
        Set<String> claimed = claimFirst(c, consumer, firsts.keySet());
        // Every id new (the usual batch): no per-id lookups to split the batch. Ids are unique here.
        boolean allNew = claimed.size() == firsts.size();
        boolean failed = false;
        List<InboxMessage> fresh = new ArrayList<>(claimed.size());
        for (InboxMessage m : firsts.values()) {
            if (allNew || claimed.contains(m.id())) {
                fresh.add(m);
            }
        }
        try {
            if (!fresh.isEmpty()) {
                handler.handle(c, Collections.unmodifiableList(fresh));
            }
        } catch (Exception e) {
            rethrowLostRace(e);
            Transactions.rollbackQuietly(c, e);
            failed = true;
        }
        Map<String, InboxOutcome> outcomes = new HashMap<>(capacity(firsts.size()));
        if (failed) {
            // One transaction per message, so the failing one is counted and the others commit.
            for (InboxMessage m : firsts.values()) {
                InboxOutcome outcome = process(c, consumer, m, single, steps);
                outcomes.put(m.id(), outcome);
                if (steps.ordered() && outcome.status() == InboxOutcome.Status.FAILED) {
                    break;  // the messages behind it stay unanswered (null), so none overtakes it
                }
            }
            return outcomes;
        }
        requireTransaction(c, consumer);
        List<String> rest = new ArrayList<>();
        for (String id : allNew ? List.<String>of() : firsts.keySet()) {
            if (!claimed.contains(id)) {
                rest.add(id);
            }
        }
        outcomes.putAll(rows.notClaimed(c, consumer, rest));
        Set<String> differ = new HashSet<>();
        for (String id : rest) {
            if (payloadDiffers(c, consumer, firsts.get(id), outcomes.get(id))) {
                differ.add(id);
            }
        }
        steps.beforeCommit(c, List.copyOf(firsts.keySet()));
        c.commit();
        for (String id : firsts.keySet()) {
            if (allNew || claimed.contains(id)) {
                outcomes.put(id, InboxOutcome.processed(id));
                ListenerCalls.run("processed", () -> listener.processed(consumer, id));
            } else {
                report(consumer, outcomes.get(id), differ.contains(id));
            }
        }
        return outcomes;
    }

    /**
     * {@link InboxRows#claimIds} as the first work of a transaction this inbox owns. On MariaDB, InnoDB may
     * answer a claim with a deadlock it broke by rolling the transaction back: when an uncommitted
     * claim of an id is rolled back, the deliveries waiting for it each hold a shared lock on the
     * id's index entry and each need the exclusive one to insert. The transaction is then run again
     * whole by {@link Transactions}. (In the caller's transaction, {@link Inbox#claimBatch} cannot do that
     * and says so to the caller.)
     */
    /** A hash map or set's initial capacity for {@code entries} without a resize (the default load factor, 0.75). */
    static int capacity(int entries) {
        return (int) Math.min(Integer.MAX_VALUE, entries * 4L / 3 + 1);
    }

    private Set<String> claimFirst(Connection c, String consumer, Collection<String> ids) throws SQLException {
        return rows.claimIds(c, consumer, ids);
    }

    /** Only a quarantined message has its payload stored to compare with (a processed one keeps none). */
    private boolean payloadDiffers(Connection c, String consumer, InboxMessage message, InboxOutcome answer) throws SQLException {
        return answer.status() == InboxOutcome.Status.QUARANTINED && rows.quarantinedPayloadDiffers(c, consumer, message);
    }

    private void report(String consumer, InboxOutcome outcome, boolean payloadDiffers) {
        if (outcome.status() == InboxOutcome.Status.DUPLICATE) {
            ListenerCalls.run("duplicate", () -> listener.duplicate(consumer, outcome.messageId()));
        }
        if (payloadDiffers) {
            reportPayloadDiffers(listener, consumer, outcome.messageId());
        }
    }

    /** The one report of a delivery whose payload differs from the message held under its id. */
    static void reportPayloadDiffers(InboxListener listener, String consumer, String messageId) {
        ListenerCalls.run("payloadDiffers", () -> listener.payloadDiffers(consumer, messageId));
    }

    static void requireTransaction(Connection c, String consumer) throws SQLException {
        if (c.getAutoCommit()) {
            throw new IllegalStateException("the handler of consumer '" + consumer
                    + "' switched the connection to auto-commit, which committed its work early; handlers must not commit");
        }
    }

    /**
     * A handler whose statement the database rolled back as a deadlock victim did nothing wrong: its
     * transaction lost a race. Rethrown (not counted as a failed attempt), so the whole transaction
     * runs again.
     */
    static void rethrowLostRace(Exception e) throws SQLException {
        if (!Transactions.isRetryable(e)) {
            return;
        }
        if (e instanceof SQLException sql) {
            throw sql;
        }
        if (e instanceof RuntimeException runtime) {
            throw runtime;
        }
        throw new SQLException("the handler's transaction was rolled back by the database", e);
    }
}
