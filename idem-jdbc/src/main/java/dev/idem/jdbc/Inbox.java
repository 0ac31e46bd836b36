package dev.idem.jdbc;

import dev.idem.StoreException;
import dev.idem.jdbc.internal.Guard;
import dev.idem.jdbc.internal.Jdbc;
import dev.idem.jdbc.internal.MessageHeaders;
import dev.idem.jdbc.internal.Names;
import dev.idem.jdbc.internal.SqlStatements;
import dev.idem.jdbc.internal.Tables;
import dev.idem.jdbc.internal.Transactions;
import dev.idem.jdbc.internal.Transactions.SqlWork;
import dev.idem.spi.Purgeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * An idempotent consumer's inbox: a message's claim and the handler's business writes commit in
 * <b>one transaction</b>, so a redelivered message (the broker's at-least-once) has no second effect.
 * Acknowledge the broker only after {@link #process} returns a {@linkplain InboxOutcome#settled()
 * settled} outcome: a crash between the commit and the ack means a redelivery, which the inbox
 * answers {@link InboxOutcome.Status#DUPLICATE}.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder(dataSource).build();
 * inbox.migrate();
 * InboxOutcome outcome = inbox.process("ledger", messageId, (connection, message) -> insertEntry(connection, ...));
 * if (outcome.settled()) ack();
 * }</pre>
 *
 * <h2>How a duplicate is told</h2>
 * The claim is {@code INSERT … ON CONFLICT (consumer, message_id) DO NOTHING RETURNING message_id}:
 * a row back means new. It never raises a unique violation, so a duplicate never aborts the
 * transaction it runs in (on PostgreSQL an error would); a concurrent delivery of the same id waits
 * on the uncommitted row and then skips it. Nothing is decided from an exception's text. MariaDB
 * says the same with {@code INSERT IGNORE … RETURNING message_id}.
 *
 * <h2>Failures and the quarantine</h2>
 * A handler that throws rolls back its writes and the claim; then, in a short transaction of its
 * own, the failed attempt is counted durably. The delivery that reaches {@code maxAttempts} moves
 * the message (payload, headers, last error) to the quarantine table, and every later delivery is
 * answered {@link InboxOutcome.Status#QUARANTINED} without running the handler, while other messages
 * keep flowing. {@link #listQuarantined}, {@link #replay} and {@link #drop} are the operator's tools.
 *
 * <h2>Retention</h2>
 * A processed message is remembered for {@code retention} (default 7 days) and then {@link #purge}d;
 * a redelivery after that would run again. <b>Retention must outlive the broker's redelivery
 * horizon</b>: the longest time after which the broker may still hand the same message over again
 * (Kafka: the topic's retention if consumers may rewind; RabbitMQ and NATS: how long a message may
 * stay unacknowledged or be republished). Quarantined messages are never purged.
 *
 * <h2>Consumers and ids</h2>
 * A consumer name (1–200 visible ASCII characters) scopes ids: the same message id under two
 * consumers is processed once by each. Message ids have 1–255 characters and no control
 * characters. Exception messages never contain a message id or payload.
 *
 * <p>Thread-safe; each call borrows a connection from the {@link DataSource} (pool it). Use READ
 * COMMITTED (the default) on PostgreSQL: under REPEATABLE READ a concurrent duplicate ends in a
 * serialization failure instead of waiting. MariaDB works under its default REPEATABLE READ (a
 * claim is a locking write, never a snapshot read) and READ COMMITTED alike; there a claim that
 * InnoDB picks as a deadlock victim is run again when the inbox owns the transaction.
 */
public final class Inbox implements Purgeable {
    /** Ids per claim statement: 3 parameters each keeps a statement far below every driver's limit. */
    static final int CLAIM_CHUNK = 500;
    static final int MAX_ERROR_MESSAGE = 2000;
    /** Claims run again after a deadlock the database broke (MariaDB), at most this often. */
    private static final int STATE_QUARANTINED = 2;
    private static final int STATE_PROCESSED = 1;
    private static final int STATE_DROPPED = 3;

    private final Transactions transactions;
    private final Dialect dialect;
    private final Map<String, String> tableNames;
    private final SqlStatements sql;
    private final int maxAttempts;
    private final Duration retention;
    private final InboxListener listener;
    private final String name;

    private Inbox(Builder b, Dialect dialect) {
        this.transactions = new Transactions(b.dataSource);
        this.dialect = dialect;
        this.tableNames = Map.of(Tables.DEFAULT_INBOX_TABLE, b.tableName, Tables.DEFAULT_QUARANTINE_TABLE, b.quarantineTableName);
        this.sql = SqlStatements.load(dialect.resourceFolder(), "inbox.sql", tableNames);
        this.maxAttempts = b.maxAttempts;
        this.retention = b.retention;
        this.listener = b.listener;
        this.name = dialect.displayName() + " inbox";
    }

    /** An inbox on {@code dataSource}; the dialect is detected at {@link Builder#build()} unless set. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource, null);
    }

    /** An inbox in the store's database, with the store's dialect. */
    public static Builder builder(JdbcIdempotencyStore store) {
        Objects.requireNonNull(store, "store is null");
        return new Builder(store.dataSource(), store.dialect());
    }

    /**
     * Creates or upgrades the inbox and quarantine tables: the dialect's inbox migrations not yet
     * applied, under a lock, safe to run concurrently. A DBA may run the plain SQL file instead.
     */
    public void migrate() {
        try {
            transactions.onConnection(c -> {
                new Migrator(dialect, sql, Tables.DEFAULT_INBOX_TABLE, tableNames).migrate(c);
                return null;
            });
        } catch (SQLException e) {
            throw failure("migrate", null, e);
        }
    }

    // ---- processing, one transaction per call --------------------------------------------------

    /** {@link #process(String, InboxMessage, InboxHandler)} for a message known by its id only. */
    public InboxOutcome process(String consumer, String messageId, InboxHandler handler) {
        return process(consumer, InboxMessage.of(messageId), handler);
    }

    /**
     * Claims the message for {@code consumer} and runs {@code handler} in one transaction.
     *
     * @return {@code PROCESSED} (committed), {@code DUPLICATE} (seen before; nothing ran),
     *         {@code FAILED} (the handler threw; rolled back, attempt counted) or {@code QUARANTINED}
     * @throws StoreException if the database failed (nothing was committed; do not acknowledge)
     */
    public InboxOutcome process(String consumer, InboxMessage message, InboxHandler handler) {
        checkConsumer(consumer);
        Objects.requireNonNull(message, "message is null");
        Objects.requireNonNull(handler, "handler is null");
        return inTransaction("process", consumer, c -> processOn(c, consumer, message, handler, BatchSteps.NONE));
    }

    /**
     * Claims all messages in one statement (per 500 ids) and runs {@code handler}
     * for the new ones, in order, all in one transaction. An id that occurs twice in the batch is
     * handled once; its later occurrences answer {@code DUPLICATE}.
     *
     * <p>If the handler throws for any message, the batch's transaction is rolled back and every
     * message is processed again on its own, one transaction each, as {@link #process} would: the
     * failing one has its attempt counted (and may be quarantined), the others commit.
     *
     * @return one outcome per message, in the order given
     * @throws StoreException if the database failed (nothing of the failed transaction was committed)
     */
    public List<InboxOutcome> processBatch(String consumer, List<InboxMessage> messages, InboxHandler handler) {
        return processBatch(consumer, messages, handler, BatchSteps.NONE);
    }

    /** {@link #processBatch} with a broker's steps in its transactions ({@link BrokerBatch}); an outcome is null where {@code steps} left a message unanswered. */
    List<InboxOutcome> processBatch(String consumer, List<InboxMessage> messages, InboxHandler handler, BatchSteps steps) {
        Objects.requireNonNull(handler, "handler is null");
        return batch(consumer, messages, (c, fresh) -> {
            for (InboxMessage m : fresh) {
                handler.handle(c, m);
            }
        }, handler, steps);
    }

    /**
     * {@link #processBatch} with a handler that gets all new messages of the batch in one call, so it
     * can write their effects with one JDBC batch: a batch then costs a few round trips, not one per
     * message. Claims in one statement (per 500 ids); the handler is not called if no message is new.
     * If it throws, the batch is rolled back and each message is processed on its own, the handler
     * getting a list of one, as {@link #process} would: the failing one is counted, the others commit.
     *
     * @return one outcome per message, in the order given
     * @throws StoreException if the database failed (nothing of the failed transaction was committed)
     */
    public List<InboxOutcome> processBatchAtOnce(String consumer, List<InboxMessage> messages, InboxBatchHandler handler) {
        Objects.requireNonNull(handler, "handler is null");
        return batch(consumer, messages, handler, (c, m) -> handler.handle(c, List.of(m)), BatchSteps.NONE);
    }

    private List<InboxOutcome> batch(String consumer, List<InboxMessage> messages, InboxBatchHandler handler, InboxHandler single,
                                     BatchSteps steps) {
        checkConsumer(consumer);
        Objects.requireNonNull(messages, "messages is null");
        if (messages.isEmpty()) {
            return List.of();
        }
        Map<String, InboxMessage> firsts = new LinkedHashMap<>();
        for (InboxMessage m : messages) {
            Objects.requireNonNull(m, "messages contains null");
            firsts.putIfAbsent(m.id(), m);
        }
        return inTransaction("process batch", consumer, c -> {
            Map<String, InboxOutcome> outcomes = batchOn(c, consumer, firsts, handler, single, steps);
            List<InboxOutcome> ordered = new ArrayList<>(messages.size());
            Set<String> seen = new HashSet<>();
            for (InboxMessage m : messages) {
                if (seen.add(m.id()) || outcomes.get(m.id()) == null) {
                    ordered.add(outcomes.get(m.id()));
                } else {
                    ordered.add(InboxOutcome.duplicate(m.id()));
                    Guard.run("duplicate", () -> listener.duplicate(consumer, m.id()));
                }
            }
            return ordered;
        });
    }

    // ---- in the caller's transaction ---------------------------------------------------------------

    /**
     * Claims the message in the caller's transaction, for adapters and applications that run their
     * own (and for offsets kept in the database beside the claims). Does not commit: the claim
     * becomes durable with the caller's commit and vanishes with its rollback. Never aborts the
     * transaction, also not for a duplicate. If the caller's work fails, roll back and call
     * {@link #recordFailure} so the attempt is counted.
     *
     * @return true if the message is new: process it; false if it was processed, dropped or is
     *         quarantined: skip it
     * @throws IllegalStateException if the connection is in auto-commit mode (the claim would commit alone)
     * @throws SQLException          as the driver throws it; the caller owns the transaction
     */
    public boolean claim(Connection connection, String consumer, String messageId) throws SQLException {
        return !claimBatch(connection, consumer, List.of(messageId)).isEmpty();
    }

    /**
     * {@link #claim} for many ids in one statement (per 500 ids).
     *
     * @return the new ids, in the order given, each once
     */
    public Set<String> claimBatch(Connection connection, String consumer, Collection<String> messageIds) throws SQLException {
        Objects.requireNonNull(connection, "connection is null");
        checkConsumer(consumer);
        Objects.requireNonNull(messageIds, "messageIds is null");
        Set<String> ids = new LinkedHashSet<>();
        for (String id : messageIds) {
            ids.add(checkMessageId(id));
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("claim must run in the caller's transaction, but the connection is in auto-commit mode");
        }
        if (ids.isEmpty()) {
            return Set.of();
        }
        Set<String> claimed;
        try {
            claimed = claimIds(connection, consumer, ids);
        } catch (SQLException e) {
            throw Transactions.inCallersTransaction(e, "the inbox claim");
        }
        Set<String> ordered = new LinkedHashSet<>();
        for (String id : ids) {
            if (claimed.contains(id)) {
                ordered.add(id);
            }
        }
        return Collections.unmodifiableSet(ordered);
    }

    /**
     * Counts a failed attempt for a message whose work (begun with {@link #claim}) was rolled back,
     * in a short transaction of its own, and quarantines the message if that was its last allowed
     * attempt. Call it after the rollback, never inside the failed transaction.
     *
     * @return {@code FAILED} (redeliver it) or {@code QUARANTINED} (settle it)
     */
    public InboxOutcome recordFailure(String consumer, InboxMessage message, Throwable cause) {
        checkConsumer(consumer);
        Objects.requireNonNull(message, "message is null");
        Objects.requireNonNull(cause, "cause is null");
        return inTransaction("record failure", consumer, c -> countFailure(c, consumer, message, cause));
    }

    // ---- the quarantine -------------------------------------------------------------------------

    /** Up to {@code limit} (1–10000) quarantined messages of {@code consumer}, oldest first failure first. */
    public List<QuarantinedMessage> listQuarantined(String consumer, int limit) {
        checkConsumer(consumer);
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be 1-10000, was " + limit);
        }
        return inTransaction("list quarantined", consumer, c -> {
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
    public Optional<QuarantinedMessage> findQuarantined(String consumer, String messageId) {
        checkConsumer(consumer);
        checkMessageId(messageId);
        return inTransaction("find quarantined", consumer, c -> {
            Optional<QuarantinedMessage> found = findQuarantined(c, consumer, messageId);
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
        checkConsumer(consumer);
        checkMessageId(messageId);
        Objects.requireNonNull(handler, "handler is null");
        return inTransaction("replay", consumer, c -> {
            // The update comes first: it locks the inbox row, so concurrent replays run one after the other.
            if (releaseQuarantined(c, consumer, messageId, STATE_PROCESSED) == 0) {
                c.rollback();
                return InboxOutcome.duplicate(messageId);
            }
            Optional<QuarantinedMessage> found = findQuarantined(c, consumer, messageId);
            if (found.isEmpty()) {
                // An inbox row in quarantine without its message: someone deleted it by hand. Release the row.
                c.commit();
                return InboxOutcome.duplicate(messageId);
            }
            QuarantinedMessage q = found.get();
            try {
                handler.handle(c, q.message());
                requireTransaction(c, consumer);
            } catch (Exception e) {
                rethrowLostRace(e);
                Transactions.rollbackQuietly(c, e);
                update(c, "inbox_replay_failure", e.getClass().getName(), errorMessage(e), consumer, messageId);
                c.commit();
                return InboxOutcome.quarantined(messageId, q.attempts() + 1, e);
            }
            update(c, "inbox_quarantine_delete", consumer, messageId);
            c.commit();
            Guard.run("replayed", () -> listener.replayed(consumer, messageId));
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
        checkConsumer(consumer);
        checkMessageId(messageId);
        return inTransaction("drop", consumer, c -> {
            if (releaseQuarantined(c, consumer, messageId, STATE_DROPPED) == 0) {
                c.rollback();
                return false;
            }
            update(c, "inbox_quarantine_delete", consumer, messageId);
            c.commit();
            Guard.run("dropped", () -> listener.dropped(consumer, messageId));
            return true;
        });
    }

    // ---- retention ------------------------------------------------------------------------------

    /**
     * Deletes up to {@code limit} expired rows, processed and dropped messages first, then attempt
     * counters, never a quarantined message; each statement is short. Run it on a schedule, e.g.
     * with {@code Sweeper.builder(inbox)}.
     */
    @Override
    public int purge(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("purge limit must be at least 1, was " + limit);
        }
        int deleted = inTransaction("purge", null, c -> {
            int rows = executeUpdate(c, "inbox_purge", limit);
            c.commit();
            if (rows < limit) {
                rows += executeUpdate(c, "inbox_purge_failures", limit - rows);
                c.commit();
            }
            return rows;
        });
        if (deleted > 0) {
            Guard.run("purged", () -> listener.purged(deleted));
        }
        return deleted;
    }

    // ---- settings ---------------------------------------------------------------------------------

    public Dialect dialect() {
        return dialect;
    }

    public String tableName() {
        return tableNames.get(Tables.DEFAULT_INBOX_TABLE);
    }

    public String quarantineTableName() {
        return tableNames.get(Tables.DEFAULT_QUARANTINE_TABLE);
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration retention() {
        return retention;
    }

    @Override
    public String toString() {
        return "Inbox[" + dialect.displayName() + ", table=" + tableName() + ", quarantine=" + quarantineTableName()
                + ", maxAttempts=" + maxAttempts + ", retention=" + retention + "]";
    }

    // ---- on a connection in a transaction ---------------------------------------------------------

    private InboxOutcome processOn(Connection c, String consumer, InboxMessage message, InboxHandler handler, BatchSteps steps)
            throws SQLException {
        String id = message.id();
        if (claimFirst(c, consumer, List.of(id)).isEmpty()) {
            InboxOutcome answer = notClaimed(c, consumer, List.of(id)).get(id);
            if (steps == BatchSteps.NONE) {
                c.rollback();
            } else {
                // Settled without work: the broker's step (e.g. a stored position) still commits.
                steps.beforeCommit(c, List.of(id));
                c.commit();
            }
            report(consumer, answer);
            return answer;
        }
        try {
            handler.handle(c, message);
        } catch (Exception e) {
            rethrowLostRace(e);
            Transactions.rollbackQuietly(c, e);
            return countFailure(c, consumer, message, e);
        }
        requireTransaction(c, consumer);
        steps.beforeCommit(c, List.of(id));
        c.commit();
        Guard.run("processed", () -> listener.processed(consumer, id));
        return InboxOutcome.processed(id);
    }

    private Map<String, InboxOutcome> batchOn(Connection c, String consumer, Map<String, InboxMessage> firsts, InboxBatchHandler handler,
                                              InboxHandler single, BatchSteps steps) throws SQLException {
        Set<String> claimed = claimFirst(c, consumer, firsts.keySet());
        boolean failed = false;
        List<InboxMessage> fresh = new ArrayList<>(claimed.size());
        for (InboxMessage m : firsts.values()) {
            if (claimed.contains(m.id())) {
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
        Map<String, InboxOutcome> outcomes = new HashMap<>();
        if (failed) {
            // One transaction per message, so the failing one is counted and the others commit.
            for (InboxMessage m : firsts.values()) {
                InboxOutcome outcome = processOn(c, consumer, m, single, steps);
                outcomes.put(m.id(), outcome);
                if (steps.ordered() && outcome.status() == InboxOutcome.Status.FAILED) {
                    break;  // the messages behind it stay unanswered (null), so none overtakes it
                }
            }
            return outcomes;
        }
        requireTransaction(c, consumer);
        List<String> rest = new ArrayList<>();
        for (String id : firsts.keySet()) {
            if (!claimed.contains(id)) {
                rest.add(id);
            }
        }
        outcomes.putAll(notClaimed(c, consumer, rest));
        steps.beforeCommit(c, List.copyOf(firsts.keySet()));
        c.commit();
        for (String id : firsts.keySet()) {
            if (claimed.contains(id)) {
                outcomes.put(id, InboxOutcome.processed(id));
                Guard.run("processed", () -> listener.processed(consumer, id));
            } else {
                report(consumer, outcomes.get(id));
            }
        }
        return outcomes;
    }

    /**
     * {@link #claimIds} as the first work of a transaction this inbox owns. On MariaDB, InnoDB may
     * answer a claim with a deadlock it broke by rolling the transaction back: when an uncommitted
     * claim of an id is rolled back, the deliveries waiting for it each hold a shared lock on the
     * id's index entry and each need the exclusive one to insert. The transaction is then run again
     * whole by {@link Transactions}. (In the caller's transaction, {@link #claimBatch} cannot do that
     * and says so to the caller.)
     */
    private Set<String> claimFirst(Connection c, String consumer, Collection<String> ids) throws SQLException {
        return claimIds(c, consumer, ids);
    }

    /**
     * Runs the claim statement in chunks; returns the ids that were new. The ids are claimed in
     * sorted order: a claim waits on another transaction's uncommitted row of the same id, so two
     * batches claiming overlapping ids in different orders could each wait on the other (PostgreSQL
     * detects that and aborts one); in one global order they cannot.
     */
    private Set<String> claimIds(Connection c, String consumer, Collection<String> ids) throws SQLException {
        Set<String> claimed = new HashSet<>();
        List<String> all = new ArrayList<>(ids);
        Collections.sort(all);
        long retentionMs = retention.toMillis();
        for (int from = 0; from < all.size(); from += CLAIM_CHUNK) {
            List<String> chunk = all.subList(from, Math.min(all.size(), from + CLAIM_CHUNK));
            String statement = sql.expand("inbox_claim", "{rows}", sql.get("inbox_claim_row"), chunk.size());
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                int i = 1;
                for (String id : chunk) {
                    ps.setString(i++, consumer);
                    ps.setString(i++, id);
                    ps.setLong(i++, retentionMs);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        claimed.add(rs.getString(1));
                    }
                }
            }
        }
        return claimed;
    }

    /** Why ids were not claimed: quarantined, or else duplicates (processed, dropped, or purged since). */
    private Map<String, InboxOutcome> notClaimed(Connection c, String consumer, List<String> ids) throws SQLException {
        Map<String, InboxOutcome> out = new HashMap<>();
        for (int from = 0; from < ids.size(); from += CLAIM_CHUNK) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + CLAIM_CHUNK));
            try (PreparedStatement ps = c.prepareStatement(sql.expand("inbox_states", "{ids}", "?", chunk.size()))) {
                ps.setString(1, consumer);
                for (int i = 0; i < chunk.size(); i++) {
                    ps.setString(i + 2, chunk.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String id = rs.getString(1);
                        out.put(id, rs.getInt(2) == STATE_QUARANTINED ? InboxOutcome.quarantined(id, 0, null) : InboxOutcome.duplicate(id));
                    }
                }
            }
        }
        for (String id : ids) {
            out.putIfAbsent(id, InboxOutcome.duplicate(id));
        }
        return out;
    }

    /** Counts the failed attempt and quarantines at the limit; commits. The connection's last transaction was rolled back. */
    private InboxOutcome countFailure(Connection c, String consumer, InboxMessage message, Throwable cause) throws SQLException {
        String id = message.id();
        try {
            int attempts;
            try (PreparedStatement ps = c.prepareStatement(sql.get("inbox_count_failure"))) {
                ps.setString(1, consumer);
                ps.setString(2, id);
                ps.setLong(3, retention.toMillis());
                ps.setString(4, cause.getClass().getName());
                ps.setString(5, errorMessage(cause));
                ps.setBytes(6, message.payloadUnsafe());
                ps.setString(7, MessageHeaders.encode(message.headers()));
                try (ResultSet rs = ps.executeQuery()) {
                    attempts = rs.next() ? rs.getInt(1) : -1;
                }
            }
            if (attempts < 0) {
                // Another delivery quarantined it meanwhile.
                c.commit();
                return InboxOutcome.quarantined(id, 0, cause);
            }
            if (attempts >= maxAttempts && update(c, "inbox_quarantine_claim", consumer, id) == 1) {
                update(c, "inbox_quarantine_mark", consumer, id);
                c.commit();
                Guard.run("quarantined", () -> listener.quarantined(consumer, id, attempts));
                return InboxOutcome.quarantined(id, attempts, cause);
            }
            // Below the limit, or another delivery of the message was processed meanwhile.
            c.commit();
            Guard.run("failed", () -> listener.failed(consumer, id, attempts, cause));
            return InboxOutcome.failed(id, attempts, cause);
        } catch (SQLException | RuntimeException e) {
            e.addSuppressed(cause);
            throw e;
        }
    }

    private int releaseQuarantined(Connection c, String consumer, String messageId, int newState) throws SQLException {
        return update(c, "inbox_release_quarantined", newState, retention.toMillis(), consumer, messageId);
    }

    private Optional<QuarantinedMessage> findQuarantined(Connection c, String consumer, String messageId) throws SQLException {
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

    private int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    private int executeUpdate(Connection c, String statement, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            ps.setInt(1, limit);
            return ps.executeUpdate();
        }
    }

    private void report(String consumer, InboxOutcome outcome) {
        if (outcome.status() == InboxOutcome.Status.DUPLICATE) {
            Guard.run("duplicate", () -> listener.duplicate(consumer, outcome.messageId()));
        }
    }

    private static void requireTransaction(Connection c, String consumer) throws SQLException {
        if (c.getAutoCommit()) {
            throw new IllegalStateException("the handler of consumer '" + consumer
                    + "' switched the connection to auto-commit, which committed its work early; handlers must not commit");
        }
    }

    private static String errorMessage(Throwable cause) {
        return Jdbc.truncate(cause.getMessage(), MAX_ERROR_MESSAGE);
    }

    // ---- connections and errors ---------------------------------------------------------------

    /**
     * Runs {@code work} in a transaction of its own (work commits what it wants kept and may end one
     * step before the next); a transaction the database rolls back as a deadlock victim or
     * serialization failure, the handler's writes included, is run again whole.
     */
    private <T> T inTransaction(String operation, String consumer, SqlWork<T> work) {
        try {
            return transactions.inTransaction(work);
        } catch (SQLException e) {
            throw failure(operation, consumer, e);
        }
    }

    /**
     * A handler whose statement the database rolled back as a deadlock victim did nothing wrong: its
     * transaction lost a race. Rethrown (not counted as a failed attempt), so the whole transaction
     * runs again.
     */
    private static void rethrowLostRace(Exception e) throws SQLException {
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

    private StoreException failure(String operation, String consumer, SQLException e) {
        String what = consumer == null ? operation : operation + " for consumer '" + consumer + "'";
        return StoreException.failed(name, what, null, Jdbc.redacted(e));
    }

    // ---- validation --------------------------------------------------------------------------------

    static String checkConsumer(String consumer) {
        return Names.checkConsumer(consumer, "consumer name");
    }

    /** 1–255 characters without control characters; the message never quotes the id. */
    static String checkMessageId(String id) {
        if (id == null || id.isEmpty() || id.length() > 255) {
            throw new IllegalArgumentException("message id must have 1-255 characters, was "
                    + (id == null ? "null" : id.length() + " characters"));
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                throw new IllegalArgumentException("message id has a control character at position " + i);
            }
        }
        return id;
    }

    /**
     * What a {@link BrokerBatch} adds to the transactions of {@link #processBatch(String, List, InboxHandler, BatchSteps)}:
     * work that must commit with the claims (a broker position kept in the database), and whether the
     * one-per-transaction fallback keeps the batch's order by stopping at the first failed message.
     */
    interface BatchSteps {
        BatchSteps NONE = new BatchSteps() {
            @Override
            public void beforeCommit(Connection connection, List<String> settledIds) {
            }

            @Override
            public boolean ordered() {
                return false;
            }
        };

        /** Runs last in a transaction that is about to commit, with the ids whose first deliveries it settles. */
        void beforeCommit(Connection connection, List<String> settledIds) throws SQLException;

        boolean ordered();
    }

    /** Settings of an {@link Inbox}; each setter validates its value. */
    public static final class Builder {
        private final DataSource dataSource;
        private Dialect dialect;
        private String tableName = Tables.DEFAULT_INBOX_TABLE;
        private String quarantineTableName = Tables.DEFAULT_QUARANTINE_TABLE;
        private int maxAttempts = 5;
        private Duration retention = Duration.ofDays(7);
        private InboxListener listener = InboxListener.noop();

        private Builder(DataSource dataSource, Dialect dialect) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource is null");
            this.dialect = dialect;
        }

        /** Default: detected from the database's product name at {@link #build()}. */
        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect is null");
            return this;
        }

        /** Default {@code idem_inbox}. A lower-case SQL identifier of at most 48 characters. */
        public Builder tableName(String tableName) {
            this.tableName = Tables.checkName(tableName);
            return this;
        }

        /** Default {@code idem_quarantine}. A lower-case SQL identifier of at most 48 characters. */
        public Builder quarantineTableName(String quarantineTableName) {
            this.quarantineTableName = Tables.checkName(quarantineTableName);
            return this;
        }

        /** Failed attempts after which a message is quarantined: 1–1000, default 5. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1 || maxAttempts > 1000) {
                throw new IllegalArgumentException("maxAttempts must be 1-1000, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * How long a processed message is remembered, default 7 days. Must outlive the broker's
         * redelivery horizon: a redelivery after it runs the handler again.
         */
        public Builder retention(Duration retention) {
            Objects.requireNonNull(retention, "retention is null");
            if (retention.toMillis() < 1) {
                throw new IllegalArgumentException("retention must be at least 1 ms, was " + retention);
            }
            this.retention = retention;
            return this;
        }

        public Builder listener(InboxListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        /**
         * Builds the inbox, detecting the dialect if none was set and, on SQLite, checking the
         * settings idem relies on.
         *
         * @throws IllegalStateException if the two table names are equal, or SQLite lacks WAL, synchronous=FULL or a busy timeout
         * @throws StoreException        if the database cannot be reached
         */
        public Inbox build() {
            if (tableName.equals(quarantineTableName)) {
                throw new IllegalStateException("the inbox and quarantine tables must differ, both are '" + tableName + "'");
            }
            try (Connection c = dataSource.getConnection()) {
                Dialect chosen = dialect != null ? dialect : Dialect.detect(c);
                if (chosen == Dialect.SQLITE) {
                    Sqlite.checkSettings(c);
                }
                return new Inbox(this, chosen);
            } catch (SQLException e) {
                throw StoreException.failed("JDBC inbox", "connect", null, Jdbc.redacted(e));
            }
        }
    }
}
