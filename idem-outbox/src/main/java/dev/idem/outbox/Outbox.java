package dev.idem.outbox;

import dev.idem.spi.Arguments;
import dev.idem.StoreException;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcComponentBuilder;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.RetentionPartitions;
import dev.idem.jdbc.support.ExpiryPurge;
import dev.idem.jdbc.support.FailureText;
import dev.idem.jdbc.support.MessageHeaders;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Tables;
import dev.idem.jdbc.support.Transactions.SqlWork;
import dev.idem.jdbc.support.Transactions;
import dev.idem.spi.Purgeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The transactional outbox: events are written in the <b>business transaction</b>, so an event exists
 * if and only if the change it announces committed; an {@link OutboxRelay} then publishes them to a
 * broker, in order per aggregate, each with a stable message id.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder(dataSource).build();
 * outbox.migrate();
 * // in the business transaction:
 * outbox.append(connection, "payment", paymentId, "PaymentCaptured", json, Map.of("content-type", "application/json"));
 * // once per process:
 * OutboxRelay relay = OutboxRelay.builder(outbox, message -> broker.send(message)).build().start();
 * }</pre>
 *
 * <h2>Delivery contract: at least once, in order per aggregate</h2>
 * A relay marks an event sent only after the publisher returned. A crash (or a lost broker
 * acknowledgement) between the publish and the mark republishes the event <b>with the same message
 * id</b>: consumers deduplicate on it with an inbox ({@code dev.idem.inbox.Inbox}). Events of one aggregate are published in
 * sequence order; a failing event is retried with backoff and its aggregate's later events wait for
 * it (other aggregates flow on). Several relays may run at once: a relay leases the head of an
 * aggregate (PostgreSQL and MariaDB: {@code FOR UPDATE SKIP LOCKED}; SQLite: its single writer) with the events
 * after it, so no two relays publish one row while their leases hold. A lease must outlast one poll's
 * publishing; if it runs out, another relay may publish the same events again (still in order, the
 * same ids).
 *
 * <h2>Tables</h2>
 * {@code idem_outbox} (events; sent ones are purged after {@code retention}, default 1 day) and
 * {@code idem_outbox_sequence} (the last sequence per aggregate, kept so sequences never restart;
 * one small row per aggregate). With {@code tableName("x")} they are {@code x} and {@code x_sequence}.
 * On PostgreSQL and MariaDB {@link Builder#retentionByPartition} keeps {@code idem_outbox}
 * range-partitioned by each event's time and purges by dropping a partition once every event in it is
 * sent and past its retention; a partition holding an event not sent yet is kept, and
 * {@link #keptPartitions()} says so.
 */
public final class Outbox implements Purgeable {
    /** Each unit of work on a connection, a driver failure as a redacted StoreException naming the outbox. */
    private final StoreCalls calls;
    private final Dialect dialect;
    private final Map<String, String> tableNames;
    private final SqlStatements sql;
    /** The row-by-row purge of sent events, batch after batch along the expiry index. */
    private final ExpiryPurge rowPurge = new ExpiryPurge();
    private final Duration retention;
    private final Supplier<Map<String, String>> headerSource;
    /** The operators' reads ({@link #backlog}). */
    private final OutboxInspection inspection;
    /** Retention by partition's maintenance of the outbox table, or null for one unpartitioned table (the default). */
    private final RetentionPartitions partitions;

    private Outbox(Builder b, Dialect dialect) {
        this.calls = new StoreCalls(new Transactions(b.dataSource()), dialect.displayName() + " outbox");
        this.dialect = dialect;
        this.tableNames = Map.of(Tables.DEFAULT_OUTBOX_TABLE, b.tableName());
        boolean partitioned = b.partitionWidth != null;
        if (partitioned && dialect == Dialect.SQLITE) {
            // Before the statements are loaded: SQLite has no partitioned layout's statements to miss.
            throw new IllegalStateException("retentionByPartition is supported on PostgreSQL and MariaDB, not on " + dialect.displayName());
        }
        this.sql = SqlStatements.loadFiles(dialect, b.sqlSource, partitioned ? List.of("outbox.sql", PARTITIONED_SQL) : List.of("outbox.sql"),
                tableNames, requiredStatements(dialect, partitioned));
        this.retention = b.retention;
        this.headerSource = b.headerSource;
        this.inspection = new OutboxInspection(dialect, tableNames, calls);
        // By event time, not expiry (a pending event has none): a partition may go a retention after its
        // bound, and only once nothing in it is pending or sent within its retention (partition_live_rows).
        this.partitions = partitioned ? RetentionPartitions.forTable(calls, dialect, sql, b.tableName(), b.partitionWidth,
                b.partitionHorizon(), b.purgeRowsBetweenDrops, false, retention) : null;
    }

    /** The outbox's statements with retention by partition, over outbox.sql (a common file and the dialect's). */
    static final String PARTITIONED_SQL = "outbox-partitioned.sql";

    /** Every statement the outbox and its relay run on {@code dialect}; checked when the outbox is built. */
    static List<String> requiredStatements(Dialect dialect) {
        return requiredStatements(dialect, false);
    }

    static List<String> requiredStatements(Dialect dialect, boolean partitioned) {
        List<String> names = new ArrayList<>(List.of("outbox_next_sequence", "outbox_append", "outbox_leased", "outbox_mark_sent",
                "outbox_mark_failed", "outbox_release", "outbox_pending", "outbox_purge"));
        names.addAll(scansReadCommitted(dialect) ? List.of("outbox_lease_heads", "outbox_lease_aggregate") : List.of("outbox_lease"));
        names.addAll(Migrator.requiredStatements(dialect));
        if (partitioned) {
            names.add("outbox_now");
            names.addAll(RetentionPartitions.TABLE_STATEMENTS);
        }
        return names;
    }

    /**
     * Whether the relay's lease, release and purge run at READ COMMITTED, leasing the heads first and
     * each aggregate's rows after ({@code outbox_lease_heads}, {@code outbox_lease_aggregate}; MariaDB).
     * Under REPEATABLE READ InnoDB's locking scans would keep every row they looked at locked, and the
     * gaps between index entries too, so two relays leasing different aggregates, or a relay and a
     * business transaction appending, could wait on each other in a cycle; under READ COMMITTED InnoDB
     * keeps only the rows it takes.
     */
    static boolean scansReadCommitted(Dialect dialect) {
        return switch (dialect) {
            case MARIADB -> true;
            case POSTGRESQL, SQLITE -> false;
        };
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** An outbox in the store's database, with the store's dialect. */
    public static Builder builder(JdbcIdempotencyStore store) {
        return new Builder(store);
    }

    /** Creates or upgrades the outbox tables (the dialect's outbox migrations), under a lock; safe to run concurrently. */
    public void migrate() {
        Migrator migrator = new Migrator(dialect, sql, Outbox.class, Tables.DEFAULT_OUTBOX_TABLE, tableNames);
        if (partitions != null) {
            // A new outbox table is created partitioned (V3's CREATE then skips it and adds its indexes), with its partitions.
            partitions.migrate(migrator);
        } else {
            calls.migrate(migrator);
        }
    }

    /** {@link #append(Connection, String, String, String, byte[], Map)} without headers. */
    public OutboxMessage append(Connection connection, String aggregateType, String aggregateId, String eventType, byte[] payload)
            throws SQLException {
        return append(connection, aggregateType, aggregateId, eventType, payload, Map.of());
    }

    /**
     * Writes an event in the caller's transaction, with a new message id and the aggregate's next
     * sequence. Does not commit: the event exists once the caller commits and vanishes with its
     * rollback (and so does its sequence, so sequences have no gaps). Concurrent transactions
     * appending to the same aggregate take turns on its sequence row: they commit in sequence order.
     *
     * @param aggregateType e.g. {@code payment}: 1–255 characters without control characters
     * @param aggregateId   the aggregate's id: 1–255 characters without control characters
     * @param eventType     e.g. {@code PaymentCaptured}: 1–255 characters without control characters
     * @param payload       the event body, never null
     * @param headers       broker headers to publish with it; names non-empty, values non-null. They
     *                      are added to the {@linkplain Builder#headers(Supplier) header source}'s, and
     *                      win over them for the same name
     * @return the event as it will be published
     * @throws IllegalStateException if the connection is in auto-commit mode (the event would not be part of a business transaction)
     * @throws SQLException          as the driver throws it; the caller owns the transaction
     */
    public OutboxMessage append(Connection connection, String aggregateType, String aggregateId, String eventType, byte[] payload,
            Map<String, String> headers) throws SQLException {
        Objects.requireNonNull(connection, "connection is null");
        checkText("aggregateType", aggregateType);
        checkText("aggregateId", aggregateId);
        checkText("eventType", eventType);
        Objects.requireNonNull(payload, "payload is null (use an empty array)");
        Map<String, String> headerCopy = MessageHeaders.copyOf(withSourceHeaders(headers));
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("append belongs in the business transaction, but the connection is in auto-commit mode");
        }
        try {
            return appendOn(connection, aggregateType, aggregateId, eventType, payload.clone(), headerCopy);
        } catch (SQLException e) {
            throw Transactions.inCallersTransaction(e, "outbox append");
        }
    }

    private Map<String, String> withSourceHeaders(Map<String, String> headers) {
        if (headerSource == null) {
            return headers;
        }
        Objects.requireNonNull(headers, "headers is null");
        Map<String, String> fromSource = headerSource.get();
        if (fromSource == null || fromSource.isEmpty()) {
            return headers;
        }
        Map<String, String> merged = new LinkedHashMap<>(fromSource);
        merged.putAll(headers);
        return merged;
    }

    private OutboxMessage appendOn(Connection connection, String aggregateType, String aggregateId, String eventType, byte[] body,
            Map<String, String> headerCopy) throws SQLException {
        long sequence;
        try (PreparedStatement ps = connection.prepareStatement(sql.get("outbox_next_sequence"))) {
            ps.setString(1, aggregateType);
            ps.setString(2, aggregateId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                sequence = rs.getLong(1);
            }
        }
        UUID messageId = UUID.randomUUID();
        long createdAt;
        try (PreparedStatement ps = connection.prepareStatement(sql.get("outbox_append"))) {
            ps.setString(1, messageId.toString());
            ps.setString(2, aggregateType);
            ps.setString(3, aggregateId);
            ps.setLong(4, sequence);
            ps.setString(5, eventType);
            ps.setBytes(6, body);
            ps.setString(7, MessageHeaders.encode(headerCopy));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                createdAt = rs.getLong(1);
            }
        }
        return new OutboxMessage(messageId, aggregateType, aggregateId, sequence, eventType, body, headerCopy,
                Instant.ofEpochMilli(createdAt), 0);
    }

    /** Events not sent yet. */
    public long pendingCount() {
        return inConnection("count pending", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("outbox_pending")); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    /**
     * What an operator reads: the events not sent yet, the oldest one's age, the same per aggregate
     * type, and up to {@code failingLimit} pending events the relay failed to publish, most attempts
     * first. One transaction; never a payload or headers.
     *
     * @param failingLimit 1 to 1000
     */
    public OutboxBacklog backlog(int failingLimit) {
        dev.idem.spi.Arguments.between("failingLimit", failingLimit, 1, 1000);
        return inspection.backlog(failingLimit);
    }

    /**
     * Deletes up to {@code limit} sent events past their retention; never a pending one. With
     * {@linkplain Builder#retentionByPartition retention by partition} it first runs the partitions'
     * maintenance: partitions made ahead, and every partition whose bound is the retention in the past
     * dropped whole if no event in it is pending or sent within its retention (its rows, the planner's
     * estimate, count towards the answer); events are then deleted one by one only if
     * {@link Builder#purgeRowsBetweenDrops} is set or the table is not partitioned.
     */
    @Override
    public int purge(int limit) {
        Arguments.atLeast("purge limit", limit, 1);
        long dropped = partitions == null ? 0 : partitions.maintain().rowsDropped();
        boolean rowByRow = partitions == null || partitions.deletesExpiredRows() || !partitions.partitioned();
        int deleted = !rowByRow ? 0 : inConnection("purge", c -> withScanIsolation(c, conn -> rowPurge.deleteBatch(conn, sql.get("outbox_purge"), limit)));
        return (int) Math.min(Integer.MAX_VALUE, dropped + deleted);
    }

    /**
     * The partitions of an outbox built with {@linkplain Builder#retentionByPartition retention by
     * partition} (their list and maintenance); empty otherwise.
     */
    public Optional<RetentionPartitions> retentionPartitions() {
        return Optional.ofNullable(partitions);
    }

    /**
     * Partitions past their time that are still there: their bound is more than the retention in the
     * past, and a purge kept them because an event in them is not sent yet (waiting, failing, backing
     * off) or was sent less than its retention ago. Ages on the database's clock.
     *
     * @param count     how many
     * @param oldestLag how long ago the oldest of them could have been dropped; a lag up to the relay's
     *                  purge interval is the wait for the next purge, a growing one an event that is not
     *                  getting out (see {@link #backlog})
     */
    public record KeptPartitions(int count, Duration oldestLag) {
        public KeptPartitions {
            Objects.requireNonNull(oldestLag, "oldestLag");
        }
    }

    /**
     * With retention by partition, the partitions past their time that are kept ({@link KeptPartitions});
     * empty if there are none, or without retention by partition.
     */
    public Optional<KeptPartitions> keptPartitions() {
        if (partitions == null) {
            return Optional.empty();
        }
        List<RetentionPartitions.Partition> list = partitions.partitions();
        long now = inConnection("read the clock", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("outbox_now")); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
        long due = now - retention.toMillis();
        int count = 0;
        long oldest = Long.MAX_VALUE;
        for (RetentionPartitions.Partition p : list) {
            if (p.to() <= due) {
                count++;
                oldest = Math.min(oldest, p.to());
            }
        }
        return count == 0 ? Optional.empty() : Optional.of(new KeptPartitions(count, Duration.ofMillis(due - oldest)));
    }

    public Dialect dialect() {
        return dialect;
    }

    public String tableName() {
        return tableNames.get(Tables.DEFAULT_OUTBOX_TABLE);
    }

    /** How long a sent event is kept before {@link #purge} may delete it. */
    public Duration retention() {
        return retention;
    }

    @Override
    public String toString() {
        return "Outbox[" + dialect.displayName() + ", table=" + tableName() + ", retention=" + retention
                + (partitions == null ? "" : ", retentionByPartition=" + partitions.width()) + "]";
    }

    // ---- for relays ------------------------------------------------------------------------------

    /**
     * Leases the heads of up to {@code maxAggregates} aggregates with up to {@code perAggregate}
     * events each, for {@code owner} (unique per poll), and returns them grouped by aggregate, heads
     * in table order, each group in sequence order.
     */
    List<List<OutboxMessage>> lease(String owner, int maxAggregates, int perAggregate, Duration lease) {
        return inConnection("lease", c -> {
            if (!leaseEvents(c, owner, maxAggregates, perAggregate, lease)) {
                return List.of();
            }
            Map<String, List<OutboxMessage>> groups = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("outbox_leased"))) {
                ps.setString(1, owner);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        OutboxMessage m = read(rs);
                        groups.computeIfAbsent(m.aggregateType() + "\u0000" + m.aggregateId(), k -> new ArrayList<>()).add(m);
                    }
                }
            }
            List<List<OutboxMessage>> out = new ArrayList<>(groups.size());
            for (List<OutboxMessage> group : groups.values()) {
                group.sort(Comparator.comparingLong(OutboxMessage::sequence));
                out.add(group);
            }
            return out;
        });
    }

    /**
     * Runs the dialect's lease: one statement ({@code outbox_lease}), or, where the dialect has
     * {@code outbox_lease_heads} (MariaDB), a transaction that locks the heads and then leases each
     * head's events. Returns whether anything was leased.
     */
    private boolean leaseEvents(Connection c, String owner, int maxAggregates, int perAggregate, Duration lease) throws SQLException {
        if (!scansReadCommitted(dialect)) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("outbox_lease"))) {
                ps.setInt(1, maxAggregates);
                ps.setString(2, owner);
                ps.setLong(3, lease.toMillis());
                ps.setInt(4, perAggregate);
                return ps.executeUpdate() > 0;
            }
        }
        // If InnoDB breaks a lock cycle (with another relay's lease or release, or an append) by rolling
        // this lease back whole, nothing was published on it: Transactions runs the lease again.
        return withScanIsolation(c, conn -> leaseHeads(conn, sql.get("outbox_lease_heads"), owner, maxAggregates, perAggregate, lease));
    }

    private boolean leaseHeads(Connection c, String heads, String owner, int maxAggregates, int perAggregate, Duration lease)
            throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        if (autoCommit) {
            c.setAutoCommit(false);
        }
        try {
            int leased = 0;
            try (PreparedStatement select = c.prepareStatement(heads);
                 PreparedStatement update = c.prepareStatement(sql.get("outbox_lease_aggregate"))) {
                select.setInt(1, maxAggregates);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        update.setString(1, owner);
                        update.setLong(2, lease.toMillis());
                        update.setString(3, rs.getString(1));
                        update.setString(4, rs.getString(2));
                        update.setLong(5, rs.getLong(3));
                        update.setLong(6, rs.getLong(3));
                        update.setInt(7, perAggregate);
                        update.addBatch();
                        leased++;
                    }
                }
                if (leased > 0) {
                    update.executeBatch();
                }
            }
            c.commit();
            if (autoCommit) {
                c.setAutoCommit(true);
            }
            return leased > 0;
        } catch (SQLException | RuntimeException e) {
            Transactions.rollbackQuietly(c, e);
            Transactions.restoreQuietly(c, autoCommit, e);
            throw e;
        }
    }

    /**
     * Runs {@code work} under the dialect's isolation for the relay's locking scans, where it
     * {@linkplain #scansReadCommitted needs one} (MariaDB: READ COMMITTED), and restores the connection's own level after.
     */
    private <T> T withScanIsolation(Connection c, SqlWork<T> work) throws SQLException {
        if (!scansReadCommitted(dialect)) {
            return work.run(c);
        }
        int before = c.getTransactionIsolation();
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try {
            return work.run(c);
        } finally {
            c.setTransactionIsolation(before);
        }
    }

    void markSent(List<OutboxMessage> messages) {
        if (messages.isEmpty()) {
            return;
        }
        inConnection("mark sent", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("outbox_mark_sent"))) {
                for (OutboxMessage m : messages) {
                    ps.setLong(1, retention.toMillis());
                    ps.setString(2, m.messageId().toString());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    void markFailed(OutboxMessage message, Duration delay, Throwable cause) {
        inConnection("mark failed", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("outbox_mark_failed"))) {
                ps.setLong(1, delay.toMillis());
                ps.setString(2, FailureText.truncate(cause.getClass().getName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()),
                        FailureText.MAX_ERROR_MESSAGE));
                ps.setString(3, message.messageId().toString());
                return ps.executeUpdate();
            }
        });
    }

    void release(String owner) {
        inConnection("release", c -> withScanIsolation(c, conn -> {
            try (PreparedStatement ps = conn.prepareStatement(sql.get("outbox_release"))) {
                ps.setString(1, owner);
                return ps.executeUpdate();
            }
        }));
    }

    private static OutboxMessage read(ResultSet rs) throws SQLException {
        byte[] payload = rs.getBytes("payload");
        return new OutboxMessage(UUID.fromString(rs.getString("message_id")), rs.getString("aggregate_type"),
                rs.getString("aggregate_id"), rs.getLong("sequence"), rs.getString("event_type"),
                payload == null ? new byte[0] : payload, MessageHeaders.decode(rs.getString("headers")),
                Instant.ofEpochMilli(rs.getLong("created_at")), rs.getInt("attempts"));
    }

    // ---- connections and errors ---------------------------------------------------------------

    /**
     * One short unit of work, committed at once whatever the pool's auto-commit setting, and run again
     * if the database picks it as a deadlock victim (every unit here may run twice: a second lease,
     * release, mark or purge finds the rows as the first left them).
     */
    private <T> T inConnection(String operation, SqlWork<T> work) {
        return calls.onConnection(operation, work);
    }

    private static void checkText(String what, String value) {
        if (value == null || value.isEmpty() || value.length() > 255) {
            throw new IllegalArgumentException(what + " must have 1-255 characters, was "
                    + (value == null ? "null" : value.length() + " characters"));
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new IllegalArgumentException(what + " has a control character at position " + i);
            }
        }
    }

    /** Settings of an {@link Outbox}. */
    public static final class Builder extends JdbcComponentBuilder<Builder> {
        private Duration retention = Duration.ofDays(1);
        private SqlStatements.Source sqlSource = SqlStatements.Source.of(Outbox.class);
        private Supplier<Map<String, String>> headerSource;
        /** Null: one unpartitioned table (the default). */
        private Duration partitionWidth;
        /** Null: the retention plus the width. */
        private Duration partitionHorizon;
        private boolean purgeRowsBetweenDrops;

        /** The table defaults to {@code idem_outbox}; the sequence table is its name plus {@code _sequence}. */
        private Builder(DataSource dataSource) {
            super(dataSource, null, Tables.DEFAULT_OUTBOX_TABLE);
        }

        private Builder(JdbcIdempotencyStore store) {
            super(store, Tables.DEFAULT_OUTBOX_TABLE);
        }

        /** How long a sent event is kept before it may be purged; default 1 day. */
        public Builder retention(Duration retention) {
            this.retention = Arguments.atLeastOneMilli("retention", retention);
            return this;
        }

        /**
         * Headers every {@link Outbox#append append} stores with its event, asked for on the appending
         * thread: e.g. the current trace context ({@code traceparent}), which the relay's publisher then
         * sends, so the consumer joins the producer's trace (idem-opentelemetry has one). Headers given
         * to {@code append} win over these for the same name. Default: none.
         */
        public Builder headers(Supplier<Map<String, String>> headerSource) {
            this.headerSource = Objects.requireNonNull(headerSource, "headerSource is null");
            return this;
        }

        /**
         * Keeps the outbox table range-partitioned by each event's time ({@code created_at}, on the
         * database's clock), one partition per {@code width}, and purges by dropping a partition instead of
         * deleting events (PostgreSQL, MariaDB): the key store's and the inbox's maintenance
         * ({@link RetentionPartitions}). A partition may go once its upper bound is the {@linkplain #retention
         * retention} in the past, and goes only if no event in it is pending (not yet published, failing,
         * backing off) or sent less than its retention ago: a partition holding such an event is kept, for a
         * later purge, and {@link Outbox#keptPartitions()} reports it. So a sent event stays up to
         * {@code width} past its retention, longer if it shares a partition with one sent late. Partitions
         * are made ahead to now plus the retention plus {@code width} by {@link Outbox#migrate} and every
         * {@link Outbox#purge} (the relay's, every purge interval); should no purge run for that long, an
         * append fails (PostgreSQL) and its business transaction with it. The relay's statements scan every
         * partition: keep the partitions few (the retention plus the horizon over the width, e.g. a width of
         * a few hours for the default 1-day retention). A new table is created partitioned; an existing one
         * stays as it is, purged row by row. See docs/messaging.md.
         *
         * @param width a partition's span of event times, 1 ms to 31 days
         */
        public Builder retentionByPartition(Duration width) {
            RetentionPartitions.checkLayout(width, width);
            this.partitionWidth = width;
            this.partitionHorizon = null;
            return this;
        }

        /**
         * {@link #retentionByPartition(Duration)} with partitions made ahead to now plus {@code horizon}
         * (at least {@code width}): how long appends go on without a purge.
         */
        public Builder retentionByPartition(Duration width, Duration horizon) {
            RetentionPartitions.checkLayout(width, horizon);
            this.partitionWidth = width;
            this.partitionHorizon = horizon;
            return this;
        }

        /**
         * With retention by partition, whether {@code purge} also deletes sent events past retention one by
         * one from the partitions not yet dropped. Default false: they go with their partition, which is the
         * point of the layout.
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
         * @throws StoreException            if the database cannot be reached
         * @throws IllegalStateException     if SQLite lacks WAL, synchronous=FULL or a busy timeout, or retention by
         *                                   partition is asked for on SQLite
         * @throws IllegalArgumentException  if the retention and the partitions' width make a horizon of more than 10,000 partitions
         */
        public Outbox build() {
            if (partitionWidth != null) {
                RetentionPartitions.checkLayout(partitionWidth, partitionHorizon());
            }
            return new Outbox(this, resolveDialect("JDBC outbox"));
        }
    }
}
