package dev.idem.inbox;

import dev.idem.spi.Arguments;
import dev.idem.StoreException;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcComponentBuilder;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.RetentionPartitions;
import dev.idem.spi.ListenerCalls;
import dev.idem.jdbc.support.ExpiryPurge;
import dev.idem.jdbc.support.FailureText;
import dev.idem.jdbc.support.Isolation;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Tables;
import dev.idem.jdbc.support.Transactions.SqlWork;
import dev.idem.jdbc.support.Transactions;
import dev.idem.spi.Purgeable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
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
 * stay unacknowledged or be republished). Quarantined messages are never purged. On PostgreSQL and
 * MariaDB {@link Builder#retentionByPartition} keeps the inbox table partitioned by expiry and purges
 * by dropping whole partitions; each claim then locks its ids to the commit instead of relying on a
 * unique index.
 *
 * <h2>Consumers and ids</h2>
 * A consumer name (1–200 visible ASCII characters) scopes ids: the same message id under two
 * consumers is processed once by each. Message ids have 1–255 characters, no control characters
 * and no unpaired surrogates ({@link InboxMessage#checkId}), so each is stored exactly as given.
 * Exception messages never contain a message id or payload.
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
    static final int MAX_ERROR_MESSAGE = FailureText.MAX_ERROR_MESSAGE;
    /** Claims run again after a deadlock the database broke (MariaDB), at most this often. */
    static final int STATE_QUARANTINED = 2;
    static final int STATE_PROCESSED = 1;
    static final int STATE_DROPPED = 3;

    /** Each call's transaction, a driver failure as a redacted StoreException naming the inbox. */
    private final StoreCalls calls;
    private final Dialect dialect;
    private final Map<String, String> tableNames;
    private final SqlStatements sql;
    private final int maxAttempts;
    private final Duration retention;
    private final InboxListener listener;
    private final InboxRows rows;
    /** The row-by-row purges of the two tables, each batch after batch along its expiry index. */
    private final ExpiryPurge purgedMessages = new ExpiryPurge();
    private final ExpiryPurge purgedCounters = new ExpiryPurge();
    /** What each of this inbox's own transactions does: claim, handle, count a failure, commit. */
    private final InboxTransaction transaction;
    private final Quarantine quarantine;
    private final DataSource dataSource;
    /** Retention by partition's maintenance of the inbox table, or null for one unpartitioned table (the default). */
    private final RetentionPartitions partitions;

    private Inbox(Builder b, Dialect dialect, Isolation isolation) {
        this.dataSource = b.dataSource();
        this.calls = new StoreCalls(new Transactions(b.dataSource(), isolation), dialect.displayName() + " inbox");
        this.dialect = dialect;
        this.tableNames = Map.of(Tables.DEFAULT_INBOX_TABLE, b.tableName(), Tables.DEFAULT_QUARANTINE_TABLE, b.quarantineTableName);
        boolean partitioned = b.partitionWidth != null;
        this.sql = SqlStatements.loadFiles(dialect, b.sqlSource, partitioned ? List.of("inbox.sql", PARTITIONED_SQL) : List.of("inbox.sql"),
                tableNames, requiredStatements(dialect, partitioned));
        this.maxAttempts = b.maxAttempts;
        this.retention = b.retention;
        this.listener = b.listener;
        this.partitions = partitioned ? RetentionPartitions.forTable(calls, dialect, sql, b.tableName(), b.partitionWidth,
                b.partitionHorizon(), b.purgeRowsBetweenDrops, true) : null;
        this.rows = new InboxRows(sql, retention, b.maxAttempts, listener, b.errorText, partitioned);
        this.transaction = new InboxTransaction(rows, listener);
        this.quarantine = new Quarantine(this, rows, sql, retention, listener);
    }

    /** Every statement the inbox runs on {@code dialect}; checked when it is built. */
    static List<String> requiredStatements(Dialect dialect) {
        return requiredStatements(dialect, false);
    }

    static List<String> requiredStatements(Dialect dialect, boolean partitioned) {
        List<String> names = new ArrayList<>(List.of("inbox_claim", "inbox_claim_row", "inbox_states", "inbox_count_failure",
                "inbox_quarantine_claim", "inbox_quarantine_mark", "inbox_list_quarantined", "inbox_find_quarantined",
                "inbox_release_quarantined", "inbox_quarantine_delete", "inbox_replay_failure", "inbox_purge", "inbox_purge_failures"));
        names.addAll(Migrator.requiredStatements(dialect));
        if (partitioned) {
            names.add("inbox_lock");
            names.addAll(RetentionPartitions.TABLE_STATEMENTS);
            names.addAll(RetentionPartitions.CONVERSION_STATEMENTS);
        }
        return names;
    }

    /** The inbox's statements with retention by partition, over inbox.sql, in the dialect's folder. */
    static final String PARTITIONED_SQL = "inbox-partitioned.sql";

    /**
     * The inbox's rule for consumer names (1–200 visible ASCII characters), for a name set elsewhere
     * than on the inbox's own calls: a consumer builder's setting, a Kafka group id, a listener's id.
     *
     * @param what the setting named in the error, e.g. {@code consumerName}
     * @return {@code name}
     * @throws IllegalArgumentException naming {@code what} and the rule it breaks
     */
    public static String checkConsumerName(String name, String what) {
        return InboxNames.checkConsumer(name, what);
    }

    /** An inbox on {@code dataSource}; the dialect is detected at {@link Builder#build()} unless set. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** An inbox in the store's database, with the store's dialect. */
    public static Builder builder(JdbcIdempotencyStore store) {
        return new Builder(store);
    }

    /**
     * Creates or upgrades the inbox and quarantine tables: the dialect's inbox migrations not yet
     * applied, under a lock, safe to run concurrently. A DBA may run the plain SQL file instead.
     */
    public void migrate() {
        Migrator migrator = new Migrator(dialect, sql, Inbox.class, Tables.DEFAULT_INBOX_TABLE, tableNames);
        if (partitions != null) {
            // A new inbox table is created partitioned (the migration's CREATE then skips it), with its partitions.
            partitions.migrate(migrator);
        } else {
            calls.migrate(migrator);
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
        InboxNames.checkConsumer(consumer);
        Objects.requireNonNull(message, "message is null");
        Objects.requireNonNull(handler, "handler is null");
        return inTransaction("process", consumer, c -> transaction.process(c, consumer, message, handler, BatchSteps.NONE));
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

    /**
     * {@link #processBatch(String, List, InboxHandler)} with a consumer loop's part in each of its
     * transactions: the broker positions that commit with the claims, the batch's order and the
     * broker's delivery counts ({@link BatchSteps}). The shared consumer loop of
     * {@code dev.idem.inbox.consumer} calls it for every broker.
     *
     * @return one outcome per message, in input order; null where an ordered batch stopped before the message
     */
    public List<InboxOutcome> processBatch(String consumer, List<InboxMessage> messages, InboxHandler handler, BatchSteps steps) {
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
        InboxNames.checkConsumer(consumer);
        Objects.requireNonNull(messages, "messages is null");
        if (messages.isEmpty()) {
            return List.of();
        }
        Map<String, InboxMessage> firsts = new LinkedHashMap<>(InboxTransaction.capacity(messages.size()));
        for (InboxMessage m : messages) {
            Objects.requireNonNull(m, "messages contains null");
            firsts.putIfAbsent(m.id(), m);
        }
        // Without repeats inside the batch (the usual case) every message is its id's first.
        boolean repeats = firsts.size() != messages.size();
        return inTransaction("process batch", consumer, c -> {
            Map<String, InboxOutcome> outcomes = transaction.batch(c, consumer, firsts, handler, single, steps);
            List<InboxOutcome> ordered = new ArrayList<>(messages.size());
            Set<String> seen = repeats ? new HashSet<>(InboxTransaction.capacity(firsts.size())) : null;
            for (InboxMessage m : messages) {
                if (!repeats || seen.add(m.id()) || outcomes.get(m.id()) == null) {
                    ordered.add(outcomes.get(m.id()));
                } else {
                    ordered.add(InboxOutcome.duplicate(m.id()));
                    ListenerCalls.run("duplicate", () -> listener.duplicate(consumer, m.id()));
                    if (!Arrays.equals(m.payloadUnsafe(), firsts.get(m.id()).payloadUnsafe())) {
                        InboxTransaction.reportPayloadDiffers(listener, consumer, m.id());
                    }
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
        InboxNames.checkConsumer(consumer);
        Objects.requireNonNull(messageIds, "messageIds is null");
        Set<String> ids = new LinkedHashSet<>();
        for (String id : messageIds) {
            ids.add(InboxNames.checkMessageId(id));
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("claim must run in the caller's transaction, but the connection is in auto-commit mode");
        }
        if (ids.isEmpty()) {
            return Set.of();
        }
        Set<String> claimed;
        try {
            claimed = rows.claimIds(connection, consumer, ids);
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
     * attempt. Call it after the rollback, never inside the failed transaction. A message the inbox
     * already holds as processed or dropped is not counted: its work committed after all (a COMMIT
     * whose answer was lost) or another delivery processed it.
     *
     * @return {@code FAILED} (redeliver it), {@code QUARANTINED} (settle it), or {@code DUPLICATE}
     *         (processed or dropped before: nothing counted; settle it)
     */
    public InboxOutcome recordFailure(String consumer, InboxMessage message, Throwable cause) {
        return recordFailure(consumer, message, cause, 0);
    }

    /**
     * {@link #recordFailure(String, InboxMessage, Throwable)} for a broker that counts deliveries
     * itself: the message is quarantined once the inbox's count or {@code deliveries} reaches
     * {@code maxAttempts}, so deliveries that died with their consumer before the inbox could count
     * them still count.
     *
     * @param deliveries the broker's own count of the message's deliveries, this one included (a quorum
     *                   queue's {@code x-delivery-count} plus one, JetStream's {@code NumDelivered}); 0 if
     *                   it keeps none
     */
    public InboxOutcome recordFailure(String consumer, InboxMessage message, Throwable cause, long deliveries) {
        InboxNames.checkConsumer(consumer);
        Objects.requireNonNull(message, "message is null");
        Objects.requireNonNull(cause, "cause is null");
        return inTransaction("record failure", consumer, c -> rows.countFailure(c, consumer, message, cause, deliveries));
    }

    // ---- the quarantine -------------------------------------------------------------------------

    /** The administration of this inbox's quarantine: list, find, replay and drop quarantined messages. */
    public Quarantine quarantine() {
        return quarantine;
    }

    /** {@link Quarantine#list}; kept for the broker adapters that administer the quarantine through the inbox. */
    public List<QuarantinedMessage> listQuarantined(String consumer, int limit) {
        return quarantine.list(consumer, limit);
    }

    /** {@link Quarantine#find}. */
    public Optional<QuarantinedMessage> findQuarantined(String consumer, String messageId) {
        return quarantine.find(consumer, messageId);
    }

    /** {@link Quarantine#replay}. */
    public InboxOutcome replay(String consumer, String messageId, InboxHandler handler) {
        return quarantine.replay(consumer, messageId, handler);
    }

    /** {@link Quarantine#drop}. */
    public boolean drop(String consumer, String messageId) {
        return quarantine.drop(consumer, messageId);
    }

    // ---- retention ------------------------------------------------------------------------------

    /**
     * Deletes up to {@code limit} expired rows, processed and dropped messages first, then attempt
     * counters, never a quarantined message; each statement is short. Run it on a schedule, e.g.
     * with {@code Sweeper.builder(inbox)}. With {@linkplain Builder#retentionByPartition retention by
     * partition} it first runs the partitions' maintenance, which drops every partition past its
     * bound whole (its rows, the planner's estimate, count towards the answer); rows are then deleted
     * one by one only if {@link Builder#purgeRowsBetweenDrops} is set or the table is not partitioned.
     */
    @Override
    public int purge(int limit) {
        Arguments.atLeast("purge limit", limit, 1);
        long dropped = partitions == null ? 0 : partitions.maintain().rowsDropped();
        boolean rowByRow = partitions == null || partitions.deletesExpiredRows() || !partitions.partitioned();
        int deleted = inTransaction("purge", null, c -> {
            int purged = rowByRow ? purgedMessages.deleteBatch(c, sql.get("inbox_purge"), limit) : 0;
            c.commit();
            if (purged < limit) {
                purged += purgedCounters.deleteBatch(c, sql.get("inbox_purge_failures"), limit - purged);
                c.commit();
            }
            return purged;
        });
        int purged = (int) Math.min(Integer.MAX_VALUE, dropped + deleted);
        if (purged > 0) {
            ListenerCalls.run("purged", () -> listener.purged(purged));
        }
        return purged;
    }

    /**
     * The partitions of an inbox built with {@linkplain Builder#retentionByPartition retention by
     * partition} (their list, maintenance, and {@link RetentionPartitions#convert() conversion} of an
     * unpartitioned inbox table on a live database); empty otherwise.
     */
    public Optional<RetentionPartitions> retentionPartitions() {
        return Optional.ofNullable(partitions);
    }

    // ---- settings ---------------------------------------------------------------------------------

    public Dialect dialect() {
        return dialect;
    }

    /** The database of the inbox's tables: a caller that runs its own transactions ({@link #claim}) uses its connections. */
    public DataSource dataSource() {
        return dataSource;
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
                + ", maxAttempts=" + maxAttempts + ", retention=" + retention
                + (partitions == null ? "" : ", retentionByPartition=" + partitions.width()) + "]";
    }

    // ---- connections and errors ---------------------------------------------------------------

    /**
     * Runs {@code work} in a transaction of its own (work commits what it wants kept and may end one
     * step before the next); a transaction the database rolls back as a deadlock victim or
     * serialization failure, the handler's writes included, is run again whole.
     */
    <T> T inTransaction(String operation, String consumer, SqlWork<T> work) {
        return calls.inTransaction(consumer == null ? operation : operation + " for consumer '" + consumer + "'", work);
    }

    /**
     * What a consumer loop adds to the transactions of {@link #processBatch(String, List, InboxHandler, BatchSteps)}:
     * work that must commit with the claims (broker positions kept in the database), whether the
     * one-per-transaction fallback keeps the batch's order by stopping at the first failed message,
     * and the broker's own delivery counts. Called on the thread of the {@code processBatch} call.
     */
    public interface BatchSteps {
        /** No work, no order, no delivery counts: {@link #processBatch(String, List, InboxHandler)}. */
        BatchSteps NONE = (connection, settledIds) -> { };

        /** Runs last in a transaction that is about to commit, with the ids whose first deliveries it settles. */
        void beforeCommit(Connection connection, List<String> settledIds) throws SQLException;

        /** Whether the fallback stops at the first failed message, leaving the ones behind it unanswered (null). By default false. */
        default boolean ordered() {
            return false;
        }

        /** The broker's count of deliveries of the message with this id, the current one included; 0 (the default) if it keeps none. */
        default long deliveries(String messageId) {
            return 0;
        }
    }

    /** Settings of an {@link Inbox}; each setter validates its value. */
    public static final class Builder extends JdbcComponentBuilder<Builder> {
        private String quarantineTableName = Tables.DEFAULT_QUARANTINE_TABLE;
        private int maxAttempts = 5;
        private Duration retention = Duration.ofDays(7);
        private InboxListener listener = InboxListener.noop();
        private SqlStatements.Source sqlSource = SqlStatements.Source.of(Inbox.class);
        private Function<? super Throwable, String> errorText = errorText(QuarantineError.CLASS_NAME);
        /** Null: one unpartitioned table (the default). */
        private Duration partitionWidth;
        /** Null: the retention plus the width. */
        private Duration partitionHorizon;
        private boolean purgeRowsBetweenDrops;

        /** The table defaults to {@code idem_inbox}. */
        private Builder(DataSource dataSource) {
            super(dataSource, null, Tables.DEFAULT_INBOX_TABLE);
        }

        private Builder(JdbcIdempotencyStore store) {
            super(store, Tables.DEFAULT_INBOX_TABLE);
        }

        /** Default {@code idem_quarantine}. A lower-case SQL identifier of at most 48 characters. */
        public Builder quarantineTableName(String quarantineTableName) {
            this.quarantineTableName = Tables.checkName(quarantineTableName);
            return this;
        }

        /** Failed attempts after which a message is quarantined: 1–1000, default 5. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = Arguments.between("maxAttempts", maxAttempts, 1, 1000);
            return this;
        }

        /**
         * How long a processed message is remembered, default 7 days. Must outlive the broker's
         * redelivery horizon: a redelivery after it runs the handler again.
         */
        public Builder retention(Duration retention) {
            this.retention = Arguments.atLeastOneMilli("retention", retention);
            return this;
        }

        /** Told of each message processed, skipped as a duplicate, failed, quarantined, replayed or dropped, and of purges, for metrics. Default: nothing. */
        public Builder listener(InboxListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        /**
         * What the quarantine records of a failure beside its class name, for the delivery that
         * quarantines a message and for a failed replay. Default {@link QuarantineError#CLASS_NAME}:
         * nothing, since an exception's message can quote payload or database data. The exception
         * itself still reaches {@link InboxOutcome#failure()} and {@link InboxListener#failed}.
         */
        public Builder quarantineError(QuarantineError recorded) {
            this.errorText = errorText(Objects.requireNonNull(recorded, "quarantineError is null"));
            return this;
        }

        /**
         * Records {@code text}'s answer for a failure beside its class name (null records none), cut
         * to 2,000 characters: for a text of the application's own, such as an error code. If the
         * function throws, the quarantine records only that it did, and the attempt is counted as usual.
         */
        public Builder quarantineError(Function<? super Throwable, String> text) {
            this.errorText = Objects.requireNonNull(text, "quarantineError is null");
            return this;
        }

        private static Function<? super Throwable, String> errorText(QuarantineError recorded) {
            return switch (recorded) {
                case CLASS_NAME -> failure -> null;
                case CLASS_AND_MESSAGE -> Throwable::getMessage;
            };
        }

        /**
         * Keeps the inbox table range-partitioned by expiry, one partition per {@code width}, and
         * purges by dropping a partition once every row in it is past retention, instead of deleting
         * rows (PostgreSQL, MariaDB): the key store's layout
         * ({@link JdbcIdempotencyStore.Builder#retentionByPartition}), the same maintenance. Partitions
         * are made ahead to now plus the retention plus {@code width} by {@link #migrate} and every
         * {@link #purge}; a purge must run at least once per {@code width}, or a claim whose expiry has no partition
         * fails (PostgreSQL), and the message is redelivered. A processed message stays up to {@code width} past
         * its retention until its partition goes; quarantined messages are kept in a partition that is
         * never dropped. Without a unique index on (consumer, message id), each claim takes a lock per id
         * to its transaction's commit, so the dedupe stays atomic with the handler's writes. The
         * quarantine table stays unpartitioned. On PostgreSQL the inbox's transactions must run under READ
         * COMMITTED (the default). An existing unpartitioned table keeps working, purged row by row, until
         * {@link RetentionPartitions#convert()} converts it. See docs/messaging.md.
         *
         * @param width a partition's span of expiry times, 1 ms to 31 days
         */
        public Builder retentionByPartition(Duration width) {
            RetentionPartitions.checkLayout(width, width);
            this.partitionWidth = width;
            this.partitionHorizon = null;
            return this;
        }

        /**
         * {@link #retentionByPartition(Duration)} with partitions made ahead to now plus {@code horizon},
         * which must cover the retention (checked at {@link #build()}).
         */
        public Builder retentionByPartition(Duration width, Duration horizon) {
            RetentionPartitions.checkLayout(width, horizon);
            this.partitionWidth = width;
            this.partitionHorizon = horizon;
            return this;
        }

        /**
         * With retention by partition, whether {@code purge} also deletes expired rows one by one from the
         * partitions not yet past. Default false: they go with their partition, which is the point of the layout.
         */
        public Builder purgeRowsBetweenDrops(boolean purgeRows) {
            if (partitionWidth == null) {
                throw new IllegalStateException("purgeRowsBetweenDrops needs retentionByPartition first");
            }
            this.purgeRowsBetweenDrops = purgeRows;
            return this;
        }

        private Duration partitionHorizon() {
            return partitionHorizon != null ? partitionHorizon : retention.plus(partitionWidth);
        }

        /** Test seam: where the SQL is read from, e.g. the dialect's files with a statement left out. */
        Builder sqlSource(SqlStatements.Source sqlSource) {
            this.sqlSource = Objects.requireNonNull(sqlSource, "sqlSource is null");
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
            if (tableName().equals(quarantineTableName)) {
                throw new IllegalStateException("the inbox and quarantine tables must differ, both are '" + tableName() + "'");
            }
            if (partitionWidth == null) {
                return StoreCalls.atBuild(dataSource(), "JDBC inbox", c -> {
                    Inbox inbox = new Inbox(this, resolveDialect(c, "JDBC inbox"), Isolation.ANY);
                    // After the dialect's statements are checked, as the key store: a plain inbox's claim relies on a unique index.
                    RetentionPartitions.refuseUnpartitioned(c, inbox.dialect, tableName(), "inbox");
                    return inbox;
                });
            }
            if (partitionHorizon().compareTo(retention) < 0) {
                throw new IllegalStateException("partition horizon " + partitionHorizon + " must cover the retention (" + retention
                        + "): a claim's expiry would have no partition");
            }
            RetentionPartitions.checkLayout(partitionWidth, partitionHorizon());
            // The inbox's own transactions at READ COMMITTED: each claim's snapshot then starts after the
            // ids' locks (PostgreSQL), and on MariaDB its existence check is a plain read, without the
            // gap locks a locking read takes, which make claims of neighbouring ids deadlock.
            return StoreCalls.atBuild(dataSource(), "JDBC inbox", c -> new Inbox(this, resolveDialect(c, "JDBC inbox"),
                    Isolation.require(Connection.TRANSACTION_READ_COMMITTED, c)));
        }
    }
}
