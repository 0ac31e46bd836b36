package dev.idem.jdbc;

import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.jdbc.ClaimRows.Claimed;
import dev.idem.jdbc.internal.HeaderCodec;
import dev.idem.jdbc.support.ExpiryPurge;
import dev.idem.jdbc.support.Isolation;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.internal.ReservedConnection;
import dev.idem.jdbc.internal.ResponseCache;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Tables;
import dev.idem.jdbc.support.Transactions.SqlWork;
import dev.idem.jdbc.support.Transactions;
import dev.idem.spi.Arguments;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.HeldLease;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import dev.idem.spi.Renewals;
import dev.idem.spi.StoreAdministration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * An {@link IdempotencyStore} in one table of any JDBC database idem has a {@link Dialect} for.
 *
 * <p>A claim is one {@code INSERT … ON CONFLICT DO UPDATE … WHERE <takeover allowed> RETURNING}: a new
 * key, a released or expired record, or a takeover after the lease is over all acquire in that one
 * statement, with the lease judged by the database's clock. On PostgreSQL the same statement first
 * reads a completed, unexpired record and, if there is one, inserts nothing and returns its response:
 * a replay is one round trip that locks and writes nothing (a completed record is immutable until it
 * expires; a missing one never decides an insert, the {@code ON CONFLICT} does). Only when the claim
 * returns no row (the record is live) does a second statement read it to answer replay, in progress
 * or mismatch.
 * Every later write is an {@code UPDATE … WHERE token = ?}: a stale owner's write matches nothing.
 *
 * <p>MariaDB has no conditional {@code ON CONFLICT … DO UPDATE … RETURNING}, so there a claim takes
 * up to three short steps, none of them a check-then-insert: {@code INSERT IGNORE … RETURNING} (a row
 * back: acquired; the primary key makes exactly one of concurrent inserts win); else a plain read of
 * the record (replay, mismatch or in progress answer from it, without a lock or a write); else a
 * takeover, one conditional {@code UPDATE} whose condition InnoDB checks on the newest row version
 * under the row's exclusive lock (one matched row: acquired; none: the record changed meanwhile, go
 * again). Between the insert and the rest the claim ends its transaction, dropping the shared lock
 * the duplicate check took: two claimers each holding that lock while asking for the exclusive one
 * would deadlock. A deadlock InnoDB still reports (concurrent inserts after an uncommitted insert of
 * the same key rolled back) rolls the claim back whole, and it is simply run again.
 *
 * <p>Each call borrows a connection from the {@link DataSource} and returns it at once; pool it
 * (HikariCP). Create the table with {@link #migrate()} or by running the dialect's plain SQL files.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
    /** A live record read between a conflict and a concurrent release/purge is re-claimed; this bounds that loop. */
    private static final int MAX_CLAIM_ROUNDS = 16;

    private final DataSource dataSource;
    /** Each SPI call on a connection of its own, a driver failure as a redacted StoreException. */
    private final StoreCalls calls;
    private final Dialect dialect;
    private final String tableName;
    private final SqlStatements sql;
    /** Completed records' final answers, or null when the cache is off (the default). */
    private final ResponseCache cache;
    /** Lease renewals, on a connection of their own out of the application's reach. */
    private final LeaseRenewals renewals;
    /** The takeover step of the claim where the dialect claims in three steps (MariaDB). */
    private final ThreeStepTakeover takeover;
    /** Concurrent claims and completions in shared commits, or null when coalescing is off. */
    private final CoalescedWrites coalesced;
    /** Retention by partition: the partitions' maintenance and the claim that serialises per key; both null when off. */
    private final RetentionPartitions partitions;
    private final PartitionedClaims partitionedClaims;
    /** What an operator may ask of the store (see {@link StoreAdministration}). */
    private final JdbcStoreAdministration administration;
    /** The row-by-row purge, batch after batch along the expiry index. */
    private final ExpiryPurge rowPurge = new ExpiryPurge();

    private JdbcIdempotencyStore(DataSource dataSource, Dialect dialect, String tableName, int cacheEntries, DataSource renewalDataSource,
            SqlStatements.Source sqlSource, Isolation isolation, boolean coalesce, Builder.Partitioning partitioning) {
        this.dataSource = dataSource;
        this.calls = new StoreCalls(new Transactions(dataSource, isolation), dialect.displayName() + " store");
        this.dialect = dialect;
        this.tableName = tableName;
        this.sql = SqlStatements.load(dialect, sqlSource, partitioning == null ? null : RetentionPartitions.PARTITIONED_SQL,
                Map.of(Tables.DEFAULT_RECORD_TABLE, tableName), requiredStatements(dialect, partitioning != null));
        this.partitions = partitioning == null ? null
                : new RetentionPartitions(calls, dialect, sql, tableName, partitioning.width(), partitioning.horizon(), partitioning.deleteRows());
        this.renewals = new LeaseRenewals(sql, new ReservedConnection(renewalDataSource == null ? dataSource : renewalDataSource, isolation));
        this.takeover = new ThreeStepTakeover(sql);
        this.partitionedClaims = partitioning == null ? null : new PartitionedClaims(sql, dialect.claimsInThreeSteps() ? takeover : null);
        this.cache = cacheEntries > 0 ? new ResponseCache(cacheEntries) : null;
        this.coalesced = coalesce ? new CoalescedWrites(sql, calls, this::claimAlone, this::completeAlone) : null;
        this.administration = new JdbcStoreAdministration(dialect, tableName, calls);
    }

    /** Every statement the store and its transactional mode run on {@code dialect}; checked when the store is built. */
    static List<String> requiredStatements(Dialect dialect) {
        return requiredStatements(dialect, false);
    }

    static List<String> requiredStatements(Dialect dialect, boolean partitioned) {
        List<String> names = new ArrayList<>(List.of("claim", "lookup", "checkpoint", "complete", "release", "renew", "find", "purge",
                "renew_locked", "renew_many_row", "renew_many_lock", "renew_many_states", "claim_many", "claim_many_row"));
        names.addAll(Migrator.requiredStatements(dialect));
        if (dialect.claimsInThreeSteps()) {
            names.addAll(List.of("claim_takeover_update", "claim_taken"));
        }
        if (dialect.countsChangedRows()) {
            names.add("token_held");
        }
        if (dialect.guardsCallersTransaction()) {
            names.add("transaction_has_work");
        }
        if (partitioned) {
            names.addAll(PartitionedClaims.STATEMENTS);
            names.addAll(RetentionPartitions.statements(dialect));
        }
        return names;
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    public Dialect dialect() {
        return dialect;
    }

    public String tableName() {
        return tableName;
    }

    /** Entries the completed-response cache holds at most; 0 if it is off. */
    public int responseCacheSize() {
        return cache == null ? 0 : cache.maxEntries();
    }

    /** Whether concurrent claims and completions share commits (see {@link Builder#coalesceCommits}). */
    public boolean coalescesCommits() {
        return coalesced != null;
    }

    /** Callers whose claims or completions wait for the next coalesced batch (a test's way to see one form). */
    int waitingForBatch() {
        return coalesced == null ? 0 : coalesced.waitingClaims() + coalesced.waitingCompletions();
    }

    /**
     * The partitions of a store built with {@link Builder#retentionByPartition retention by partition}
     * (their maintenance, and the conversion of an unpartitioned table); empty otherwise.
     */
    public Optional<RetentionPartitions> retentionPartitions() {
        return Optional.ofNullable(partitions);
    }

    /** The database the store runs on; the inbox and the outbox built from the store share it. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Creates or upgrades the table by applying the dialect's migrations not yet applied; safe to run concurrently. */
    public void migrate() {
        calls.onConnection("migrate", c -> {
            migrate(c);
            return null;
        });
    }

    /** The migrations; with retention by partition, a table that does not exist yet is created partitioned, with its partitions. */
    private void migrate(Connection c) throws SQLException {
        if (partitions != null) {
            partitions.createIfAbsent(c);
        }
        migrator().migrate(c);
        if (partitions != null) {
            partitions.afterMigrate(c);
        }
    }

    /**
     * {@link #migrate()} at start-up: while the database cannot be reached (connections refused,
     * dropped or timed out) it tries again, pausing longer each time, for up to {@code retryFor}, so a
     * service starting during a database restart or failover waits for it instead of exiting.
     *
     * @throws StoreException if the database stayed out of reach for {@code retryFor} (the message says
     *                        how long it tried, with the database's last error), or a migration failed
     */
    public void migrate(Duration retryFor) {
        Objects.requireNonNull(retryFor, "retryFor is null");
        SchemaMigrations.migrate(dataSource, dialect.displayName() + " store migrations", retryFor, this::migrate);
    }

    private Migrator migrator() {
        return new Migrator(dialect, sql, Dialect.class, Tables.DEFAULT_RECORD_TABLE, Map.of(Tables.DEFAULT_RECORD_TABLE, tableName));
    }

    // ---- SPI, one connection per call ------------------------------------------------------

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        if (cache == null) {
            return claimed(request).outcome();
        }
        ClaimOutcome cached = cache.answer(request.id(), request.fingerprint());
        if (cached != null) {
            return cached;
        }
        long sentAt = System.nanoTime();
        Claimed claimed = claimed(request);
        if (claimed.outcome() instanceof ClaimOutcome.Replay replay) {
            cache.put(request.id(), request.fingerprint().value(), replay.response(), sentAt, claimed.expiresIn());
        }
        return claimed.outcome();
    }

    private Claimed claimed(ClaimRequest request) {
        return coalesced == null ? claimAlone(request) : coalesced.claim(request);
    }

    /** The claim on a connection of its own, not coalesced: a caller alone, or one a batch could not settle. */
    private Claimed claimAlone(ClaimRequest request) {
        return partitionedClaims != null
                // The per-key lock lasts to the end of a transaction: the claim's own.
                ? calls.inTransaction("claim", c -> claimOn(c, request))
                : inConnection("claim", request.id().scope(), c -> claimOn(c, request));
    }

    @Override
    public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
        inConnection("checkpoint", id.scope(), c -> {
            update(c, "checkpoint", id, token, point.phase(), point.state());
            return null;
        });
    }

    @Override
    public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
        Objects.requireNonNull(response, "response is null; complete needs the response to replay");
        Arguments.positive("retention", retention);
        CoalescedWrites.Completion completion = new CoalescedWrites.Completion(id, token, response, retention);
        if (coalesced == null) {
            completeAlone(completion);
        } else {
            coalesced.complete(completion);
        }
    }

    private Void completeAlone(CoalescedWrites.Completion entry) {
        return inConnection("complete", entry.id().scope(), c -> {
            complete(c, entry.id(), entry.token(), entry.response(), entry.retention());
            return null;
        });
    }

    @Override
    public void release(RecordKey id, long token) {
        inConnection("release", id.scope(), c -> {
            update(c, "release", id, token);
            return null;
        });
    }

    @Override
    public void renew(RecordKey id, long token, Duration lease) {
        Objects.requireNonNull(lease, "lease is null");
        if (lease.isNegative()) {
            throw new IllegalArgumentException("lease must not be negative, was " + lease);
        }
        inConnection("renew", id.scope(), c -> {
            update(c, "renew", id, token, lease.toMillis());
            return null;
        });
    }

    /** Borrows the connection renewals run on, on the owner's thread, before its work takes the pool. */
    @Override
    public void prepareRenewals() {
        try {
            renewals.reserve();
        } catch (SQLException e) {
            throw failure("reserve a renewal connection", null, e);
        }
    }

    /**
     * One transaction on the renewal connection, at most three statements per 500 leases: lock the
     * in-progress records nobody else has locked ({@code SKIP LOCKED}), read the rest without a lock,
     * extend every locked lease whose token still matches with one batch of updates by primary key. A record locked by
     * another transaction is skipped, not waited for; every round trip is bounded by a third of the
     * lease.
     */
    @Override
    public Renewals renewAll(Collection<HeldLease> leases, Duration lease) {
        Objects.requireNonNull(lease, "lease is null");
        if (leases.isEmpty()) {
            return new Renewals(Set.of(), Set.of());
        }
        try {
            return renewals.renewAll(new ArrayList<>(leases), lease);
        } catch (SQLException e) {
            throw failure("renew leases", null, e);
        }
    }

    @Override
    public int purge(int limit) {
        Arguments.atLeast("purge limit", limit, 1);
        if (partitions != null) {
            return inConnection("purge", null, c -> partitions.purge(c, limit, rowPurge));
        }
        return inConnection("purge", null, c -> rowPurge.deleteBatch(c, sql.get("purge"), limit));
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey id) {
        return inConnection("find", id.scope(), c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("find"))) {
                ps.setString(1, id.scope().value());
                ps.setString(2, id.key().value());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(ClaimRows.record(id, rs)) : Optional.empty();
                }
            }
        });
    }

    // ---- administration ---------------------------------------------------------------------------

    /** Looks at, lists and releases this store's records (see {@link StoreAdministration}). */
    @Override
    public Optional<StoreAdministration> administration() {
        return Optional.of(administration);
    }

    /**
     * The database's settings that can lose writes it acknowledged, read now as the builder's
     * {@linkplain JdbcComponentBuilder#durabilityCheck durability check} reads them: each names the
     * setting, its value and its fix, prefixed {@code failover:} if it loses writes only when a standby
     * is promoted. Empty if none. For operators; never refuses anything.
     */
    public List<String> durabilityFindings() {
        return administration.durabilityFindings();
    }

    // ---- on a caller's connection (also used by the transactional mode) ---------------------

    /**
     * The claim on a caller's connection (the transactional mode): never answered from or put into the
     * cache. It must be the first work of the connection's transaction: on MariaDB it may roll that
     * transaction back to drop a lock, or after a deadlock, and start again.
     */
    ClaimOutcome claim(Connection c, ClaimRequest request) throws SQLException {
        requireFirstWork(c);
        return claimOn(c, request).outcome();
    }

    /**
     * Where the dialect's claim may roll the caller's transaction back (MariaDB), refuses a transaction
     * that already did work, instead of discarding that work without a word.
     */
    private void requireFirstWork(Connection c) throws SQLException {
        if (!dialect.guardsCallersTransaction() || c.getAutoCommit()) {
            return;
        }
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql.get("transaction_has_work"))) {
            if (rs.next() && rs.getInt(1) != 0) {
                throw new IllegalStateException("on " + dialect.displayName() + " the transactional claim must be the first work of its "
                        + "transaction: the claim may roll the transaction back (to drop a lock, or after a deadlock), which would "
                        + "discard the work done before it; claim first, then write");
            }
        }
    }

    /** The claim's rounds on {@code c}: the outcome, with a replayed record's remaining life for the cache. */
    private Claimed claimOn(Connection c, ClaimRequest request) throws SQLException {
        if (partitionedClaims != null) {
            if (c.getAutoCommit()) {
                throw new IllegalStateException("with retention by partition the claim must run in a transaction: its lock on the key lasts to the commit");
            }
            return partitionedClaims.claim(c, request, this::lookup);
        }
        boolean byUpdate = dialect.claimsInThreeSteps();
        for (int round = 0; round < MAX_CLAIM_ROUNDS; round++) {
            try {
                Claimed settled = tryAcquire(c, request);
                if (settled != null) {
                    return settled;
                }
                if (byUpdate) {
                    // The failed insert's duplicate check left a shared lock on the record; keeping it
                    // while a takeover asks for the exclusive one would deadlock with another claimer.
                    ThreeStepTakeover.endTransaction(c);
                }
                Claimed live = lookup(c, request);
                if (live != null) {
                    return live;
                }
                if (byUpdate) {
                    ClaimOutcome taken = takeover.takeOver(c, request);
                    if (taken != null) {
                        return Claimed.of(taken);
                    }
                }
            } catch (SQLException e) {
                if (!byUpdate || !Transactions.isRetryable(e)) {
                    throw e;
                }
                // InnoDB rolled the claim's transaction back whole (the claim is its first work): run it again.
                ThreeStepTakeover.endTransaction(c);
            }
            // The record was released, purged or its lease ended between the statements: go again.
        }
        throw new SQLException("claim did not settle after " + MAX_CLAIM_ROUNDS + " rounds of concurrent changes");
    }

    /**
     * Runs the claim statement: {@code Acquired}; or, where the dialect's claim also reads a completed
     * record in the same statement (PostgreSQL), {@code Replay} or {@code Mismatch}; or {@code null}
     * when the record is live and must be looked up.
     */
    private Claimed tryAcquire(Connection c, ClaimRequest request) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("claim"))) {
            ps.setString(1, request.id().scope().value());
            ps.setString(2, request.id().key().value());
            ps.setString(3, request.fingerprint().value());
            ps.setLong(4, request.lease().toMillis());
            ps.setLong(5, request.retention().toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? ClaimRows.claimRow(rs, 1, request) : null;
            }
        }
    }

    /** Reads a live record to answer a claim that did not acquire; {@code null} if it is not live any more. */
    private Claimed lookup(Connection c, ClaimRequest request) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("lookup"))) {
            ps.setString(1, request.id().scope().value());
            ps.setString(2, request.id().key().value());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? ClaimRows.lookupRow(rs, request) : null;
            }
        }
    }

    void complete(Connection c, RecordKey id, long token, StoredResponse response, Duration retention) throws SQLException {
        update(c, "complete", id, token, response.status(), HeaderCodec.encode(response.headers()), response.body(), retention.toMillis());
    }

    /** Runs a token-conditional write; no row matched means the token is stale. */
    private void update(Connection c, String statement, RecordKey id, long token, Object... leading) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            int i = 1;
            for (Object value : leading) {
                ps.setObject(i++, value);
            }
            ps.setString(i++, id.scope().value());
            ps.setString(i++, id.key().value());
            ps.setLong(i, token);
            if (ps.executeUpdate() == 0 && !tokenHeld(c, id, token)) {
                throw LeaseLostException.staleToken(id.scope(), token, statement);
            }
        }
    }

    /**
     * Where the dialect {@linkplain Dialect#countsChangedRows counts changed rows} (MariaDB): whether a write that reported no row still
     * found the token current, i.e. it matched but changed nothing. Elsewhere 0 rows means stale.
     */
    private boolean tokenHeld(Connection c, RecordKey id, long token) throws SQLException {
        if (!dialect.countsChangedRows()) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("token_held"))) {
            ps.setString(1, id.scope().value());
            ps.setString(2, id.key().value());
            ps.setLong(3, token);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    // ---- connections and errors -------------------------------------------------------------

    /**
     * One SPI call on a connection of its own; run again whole if the database picks it as a deadlock
     * victim or fails it with a serialization error (each call is safe to repeat: a claim settles by
     * rounds anyway, and every other write is conditional on the token).
     */
    private <T> T inConnection(String operation, Scope scope, SqlWork<T> work) {
        return calls.onConnection(operation, scope, work);
    }

    StoreException failure(String operation, Scope scope, SQLException e) {
        return calls.failure(operation, scope, e);
    }

    @Override
    public String toString() {
        return "JdbcIdempotencyStore[" + dialect.displayName() + ", table=" + tableName
                + (cache == null ? "" : ", responseCache=" + cache.maxEntries()) + (coalesced == null ? "" : ", coalescedCommits")
                + (partitions == null ? "" : ", retentionByPartition=" + partitions.width()) + "]";
    }

    /** Settings of a {@link JdbcIdempotencyStore}. */
    public static final class Builder extends JdbcComponentBuilder<Builder> {
        private int responseCache;
        private DataSource renewalDataSource;
        private SqlStatements.Source sqlSource = SqlStatements.Source.of(Dialect.class);
        /** Null: the dialect's default. */
        private Boolean coalesceCommits;
        /** Null: one unpartitioned table (the default). */
        private Partitioning partitioning;

        /** Retention by partition's settings. */
        record Partitioning(Duration width, Duration horizon, boolean deleteRows) {
        }

        private static final Duration DEFAULT_HORIZON = Duration.ofDays(8);

        /** The table defaults to {@code idem_record}. */
        private Builder(DataSource dataSource) {
            super(dataSource, null, Tables.DEFAULT_RECORD_TABLE);
        }

        /**
         * Keeps up to {@code maxEntries} completed responses in this JVM (least recently used first
         * out), so a repeated replay of a key answers without a database round trip. Default 0: off.
         *
         * <p>A completed record cannot change until it expires, so its answer is final until then. An
         * entry is made when a claim reads a completed record from the database (the first replay),
         * is keyed by scope and key (it never answers another principal), and is dropped at a
         * deadline no later than the record's expiry (its remaining life on the database's clock,
         * counted from before the read was sent). First executions and in-progress keys always go to
         * the database; so does the transactional mode. Bodies over 64 KiB are not cached, so the
         * cache holds at most {@code maxEntries} × 64 KiB of bodies.
         *
         * @param maxEntries 0 (off) to 1,000,000
         */
        public Builder responseCache(int maxEntries) {
            this.responseCache = Arguments.between("responseCache maxEntries", maxEntries, 0, 1_000_000);
            return this;
        }

        /**
         * Where lease renewals get their connection. Default: the store's own {@code DataSource}, from
         * which the store then keeps <b>one connection</b> for renewals, borrowed when the first owner
         * that renews starts and held from then on, so renewals never wait for a pool busy with
         * handlers. Give a small pool of its own (two connections are plenty) to leave the
         * application's pool whole.
         */
        public Builder renewalDataSource(DataSource renewalDataSource) {
            this.renewalDataSource = Objects.requireNonNull(renewalDataSource, "renewalDataSource is null");
            return this;
        }

        /**
         * Whether concurrent claims, and separately concurrent completions, share one statement and one
         * commit (group commit). Default: the dialect's ({@link Dialect#coalescesCommitsByDefault}: on for
         * SQLite, off for PostgreSQL and MariaDB). No timer and no added latency: a caller that finds no other
         * claim (or completion) in flight goes straight to the database as before; callers arriving while
         * one is in flight queue, and when it ends the first of them takes the whole queue (up to 64
         * entries, at most one per key) to the database in one transaction. Each caller still gets its own
         * outcome only once it is committed. Off: every call commits on its own.
         */
        public Builder coalesceCommits(boolean coalesceCommits) {
            this.coalesceCommits = coalesceCommits;
            return this;
        }

        /**
         * Keeps the records in a table range-partitioned by expiry, one partition per {@code width}, and
         * purges by dropping a partition once every record in it is past retention, instead of deleting
         * rows (PostgreSQL, MariaDB). Default: one unpartitioned table, purged row by row. Partitions are created
         * ahead, up to now plus the {@linkplain #retentionByPartition(Duration, Duration) horizon}
         * (default 8 days: the key store's and the inbox's default retentions with a day to spare), at
         * {@link #migrate()} and at every {@code purge}; a claim whose retention ends past the last
         * partition fails. A record stays up to {@code width} past its expiry (expired: it answers as
         * absent) until its partition goes. An existing unpartitioned table keeps working, purged row by
         * row, until {@link RetentionPartitions#convert()} converts it. See docs/stores.md.
         *
         * @param width a partition's span of expiry times, 1 ms to 31 days
         */
        public Builder retentionByPartition(Duration width) {
            return retentionByPartition(width, DEFAULT_HORIZON);
        }

        /** {@link #retentionByPartition(Duration)} with partitions made ahead to now plus {@code horizon} (at least {@code width}). */
        public Builder retentionByPartition(Duration width, Duration horizon) {
            RetentionPartitions.checkLayout(width, horizon);
            this.partitioning = new Partitioning(width, horizon, partitioning != null && partitioning.deleteRows());
            return this;
        }

        /**
         * With retention by partition, whether {@code purge} also deletes expired rows one by one from the
         * partitions not yet past (what an unpartitioned table does). Default false: they go with their
         * partition, which is the point of the layout.
         */
        public Builder purgeRowsBetweenDrops(boolean purgeRows) {
            if (partitioning == null) {
                throw new IllegalStateException("purgeRowsBetweenDrops needs retentionByPartition first");
            }
            this.partitioning = new Partitioning(partitioning.width(), partitioning.horizon(), purgeRows);
            return this;
        }

        /** Test seam: where the SQL is read from, e.g. the dialect's files with a statement left out. */
        Builder sqlSource(SqlStatements.Source sqlSource) {
            this.sqlSource = Objects.requireNonNull(sqlSource, "sqlSource is null");
            return this;
        }

        /**
         * Builds the store, detecting the dialect if none was set and, on SQLite, checking the
         * settings idem relies on; then checking the database's durability settings
         * ({@link #durabilityCheck}).
         *
         * @throws StoreException        if the database cannot be reached
         * @throws IllegalStateException if SQLite is not in WAL mode with synchronous=FULL and a busy timeout,
         *                               or the database fails the durability check
         */
        public JdbcIdempotencyStore build() {
            return StoreCalls.atBuild(dataSource(), "JDBC store", c -> {
                Dialect chosen = resolveDialect(c, "JDBC store");
                Isolation isolation = Isolation.require(chosen.storeIsolation(), c);
                boolean coalesce = coalesceCommits == null ? chosen.coalescesCommitsByDefault() && partitioning == null : coalesceCommits;
                if (partitioning != null && (coalesce || chosen == Dialect.SQLITE)) {
                    throw new IllegalStateException(coalesce ? "retentionByPartition does not combine with coalesceCommits"
                            : "retentionByPartition is supported on PostgreSQL and MariaDB, not on " + chosen.displayName());
                }
                JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource(), chosen, tableName(), responseCache, renewalDataSource,
                        sqlSource, isolation, coalesce, partitioning);
                // After the dialect's statements are checked: a dialect that lacks some is refused for that first.
                if (partitioning == null) {
                    RetentionPartitions.refuseUnpartitionedStore(c, chosen, tableName());
                }
                return store;
            });
        }
    }
}
