package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@link TransactionalIdem} on real databases: the claim, the work on the given connection and the
 * stored response commit together or not at all. Each backend is a small {@link Nested} subclass of
 * {@link Scenarios}.
 */
class TransactionalIdemTest {

    @Nested
    @DisplayName("PostgreSQL")
    class PostgreSQL extends Scenarios {
        @Override
        Backends backend() {
            return Backends.POSTGRESQL;
        }
    }

    @Nested
    @DisplayName("MariaDB")
    class MariaDB extends Scenarios {
        @Override
        Backends backend() {
            return Backends.MARIADB;
        }
    }

    @Nested
    @DisplayName("PostgreSQL, retention by partition")
    class PostgreSQLPartitioned extends Scenarios {
        @Override
        Backends backend() {
            return Backends.POSTGRESQL;
        }

        @Override
        JdbcIdempotencyStore newStore(TestDatabase db) {
            return partitionedStore(db);
        }
    }

    @Nested
    @DisplayName("MariaDB, retention by partition")
    class MariaDBPartitioned extends Scenarios {
        @Override
        Backends backend() {
            return Backends.MARIADB;
        }

        @Override
        JdbcIdempotencyStore newStore(TestDatabase db) {
            return partitionedStore(db);
        }
    }

    /** The claim's per-key lock lasts to the caller's commit: the scenarios hold on a partitioned table too. */
    private static JdbcIdempotencyStore partitionedStore(TestDatabase db) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource())
                .retentionByPartition(java.time.Duration.ofHours(6), java.time.Duration.ofDays(2)).build();
        store.migrate();
        return store;
    }

    @Nested
    @DisplayName("SQLite")
    class SQLite extends Scenarios {
        @Override
        Backends backend() {
            return Backends.SQLITE;
        }
    }

    /** Every scenario, run once per backend on a fresh database with a {@code payment} table. */
    abstract static class Scenarios {
        private static final String KEY_VALUE = "pay-key-7f3a9c";

        private TestDatabase db;
        private JdbcIdempotencyStore store;
        private TransactionalIdem idem;
        private final Scope scope = Scope.of("principal-" + UUID.randomUUID().toString().substring(0, 8), "POST /payments");
        private final IdempotencyKey key = IdempotencyKey.of(KEY_VALUE);
        private final Fingerprint fingerprint = Fingerprint.builder().part("body", "{\"amount\":100}").build();

        abstract Backends backend();

        /** A migrated store on the fresh database; the default layout unless a backend says otherwise. */
        JdbcIdempotencyStore newStore(TestDatabase db) {
            return Backends.migratedStore(db);
        }

        @BeforeEach
        void openDatabase() throws SQLException {
            db = backend().open();
            store = newStore(db);
            idem = TransactionalIdem.of(Idem.builder().store(store).build());
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                st.execute(backend().sql("CREATE TABLE payment (id text PRIMARY KEY, amount int NOT NULL)"));
            }
        }

        @AfterEach
        void closeDatabase() {
            db.close();
        }

        // ---- helpers ------------------------------------------------------------------------------

        private static StoredResponse created(String id) {
            return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                    ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
        }

        private static void insertPayment(Connection c, String id, int amount) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO payment (id, amount) VALUES (?, ?)")) {
                ps.setString(1, id);
                ps.setInt(2, amount);
                ps.executeUpdate();
            }
        }

        private static long payments(Connection c) throws SQLException {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM payment")) {
                rs.next();
                return rs.getLong(1);
            }
        }

        /** Payments as another connection sees them (committed data only). */
        private long committedPayments() throws SQLException {
            try (Connection c = db.dataSource().getConnection()) {
                return payments(c);
            }
        }

        /** The work of a payment request: one row written on the transaction's connection. */
        private TransactionalOperation pay(AtomicInteger runs) {
            return c -> {
                runs.incrementAndGet();
                insertPayment(c, "p-1", 100);
                return created("p-1");
            };
        }

        private RecordKey id() {
            return new RecordKey(scope, key);
        }

        // ---- (a) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("with tombstones, execute leaves one after its commit: a retry after the retention is Expired, runs nothing and commits nothing")
        void aRetryAfterTheRetentionIsExpired() throws Exception {
            java.time.Duration retention = java.time.Duration.ofMillis(300);
            TransactionalIdem buried = TransactionalIdem.of(Idem.builder().store(store).lease(java.time.Duration.ofMillis(200))
                    .retention(retention).tombstones(java.time.Duration.ofMinutes(5)).build());
            AtomicInteger runs = new AtomicInteger();
            assertThat(buried.execute(scope, key, fingerprint, pay(runs))).isInstanceOf(Outcome.Executed.class);
            Thread.sleep(retention.multipliedBy(2).toMillis()); // the response's retention is over, on the database's clock too
            assertThat(store.find(id())).as("the response expired").isEmpty();

            Outcome late = buried.execute(scope, key, fingerprint, pay(runs));

            assertThat(late).isInstanceOf(Outcome.Expired.class);
            assertThat(((Outcome.Expired) late).status()).isEqualTo(201);
            assertThat(TransactionalIdem.shouldCommit(late)).isFalse();
            assertThat(runs).hasValue(1);
            assertThat(committedPayments()).isEqualTo(1);
            assertThat(store.find(id())).as("the claim was rolled back").isEmpty();
        }

        @Test
        @DisplayName("the first execution commits the row and the response; the second replays it without running the work")
        void firstExecutesSecondReplays() throws Exception {
            AtomicInteger runs = new AtomicInteger();

            Outcome first = idem.execute(scope, key, fingerprint, pay(runs));
            assertThat(first).isEqualTo(new Outcome.Executed(created("p-1"), true, 1));
            assertThat(committedPayments()).isEqualTo(1);
            assertThat(store.find(id())).get().satisfies(r -> {
                assertThat(r.state()).isEqualTo(RecordState.COMPLETED);
                assertThat(r.response()).contains(created("p-1"));
            });

            Outcome second = idem.execute(scope, key, fingerprint, pay(runs));
            assertThat(second).isEqualTo(new Outcome.Replayed(created("p-1")));
            assertThat(runs).hasValue(1);
            assertThat(committedPayments()).isEqualTo(1);
        }

        // ---- (b) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("work that throws commits nothing: no row, no record; a retry runs and commits")
        void throwingWorkCommitsNothing() throws Exception {
            IllegalStateException boom = new IllegalStateException("ledger unavailable");
            assertThatThrownBy(() -> idem.execute(scope, key, fingerprint, c -> {
                insertPayment(c, "p-1", 100);
                throw boom;
            })).isSameAs(boom);

            assertThat(committedPayments()).isZero();
            assertThat(store.find(id())).isEmpty();

            AtomicInteger runs = new AtomicInteger();
            assertThat(idem.execute(scope, key, fingerprint, pay(runs))).isEqualTo(new Outcome.Executed(created("p-1"), true, 1));
            assertThat(runs).hasValue(1);
            assertThat(committedPayments()).isEqualTo(1);
            assertThat(store.find(id())).get().extracting(r -> r.state()).isEqualTo(RecordState.COMPLETED);
        }

        // ---- (c) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("a 5xx response under the default failure policy rolls back: Executed(stored=false), no row, no record")
        void serverErrorRollsBack() throws Exception {
            StoredResponse unavailable = StoredResponse.of(503, "{\"error\":\"try later\"}".getBytes(StandardCharsets.UTF_8));
            Outcome outcome = idem.execute(scope, key, fingerprint, c -> {
                insertPayment(c, "p-1", 100);
                return unavailable;
            });

            assertThat(outcome).isEqualTo(new Outcome.Executed(unavailable, false, 1));
            assertThat(committedPayments()).isZero();
            assertThat(store.find(id())).isEmpty();

            AtomicInteger runs = new AtomicInteger();
            assertThat(idem.execute(scope, key, fingerprint, pay(runs))).isEqualTo(new Outcome.Executed(created("p-1"), true, 1));
            assertThat(runs).hasValue(1);
        }

        // ---- (d) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("16 concurrent executions of one key: the work runs once, 1 Executed and 15 Replayed with the same response")
        void concurrentDuplicatesWaitThenReplay() throws Exception {
            int callers = 16;
            AtomicInteger runs = new AtomicInteger();
            TransactionalOperation slowPayment = c -> {
                runs.incrementAndGet();
                insertPayment(c, "p-1", 100);
                Thread.sleep(200); // the duplicates arrive while this transaction is still open
                return created("p-1");
            };
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            List<Outcome> outcomes = new ArrayList<>();
            try {
                CyclicBarrier start = new CyclicBarrier(callers);
                List<Future<Outcome>> futures = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    futures.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return idem.execute(scope, key, fingerprint, slowPayment);
                    }));
                }
                for (Future<Outcome> f : futures) {
                    outcomes.add(f.get(120, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }

            assertThat(runs).hasValue(1);
            assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Executed)
                    .containsExactly(new Outcome.Executed(created("p-1"), true, 1));
            assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Replayed).hasSize(15)
                    .containsOnly(new Outcome.Replayed(created("p-1")));
            assertThat(committedPayments()).isEqualTo(1);
        }

        // ---- (e) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("the same key with another fingerprint is a Mismatch and the work does not run")
        void otherFingerprintIsMismatch() throws Exception {
            AtomicInteger runs = new AtomicInteger();
            idem.execute(scope, key, fingerprint, pay(runs));

            Fingerprint other = Fingerprint.builder().part("body", "{\"amount\":999}").build();
            AtomicInteger otherRuns = new AtomicInteger();
            Outcome outcome = idem.execute(scope, key, other, c -> {
                otherRuns.incrementAndGet();
                insertPayment(c, "p-2", 999);
                return created("p-2");
            });

            assertThat(outcome).isEqualTo(new Outcome.Mismatch());
            assertThat(otherRuns).hasValue(0);
            assertThat(committedPayments()).isEqualTo(1);
            assertThat(store.find(id())).get().satisfies(r -> {
                assertThat(r.fingerprint()).isEqualTo(fingerprint);
                assertThat(r.response()).contains(created("p-1"));
            });
        }

        // ---- (f) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("a response over maxResponseBytes commits with the effect, stored empty and marked; a retry replays it")
        void oversizedResponseCommitsNothing() throws Exception {
            TransactionalIdem capped = TransactionalIdem.of(Idem.builder().store(store).maxResponseBytes(16).build());
            AtomicInteger runs = new AtomicInteger();
            TransactionalOperation oversized = c -> {
                runs.incrementAndGet();
                insertPayment(c, "p-1", 100);
                return StoredResponse.of(200, new byte[17]);
            };

            Outcome first = capped.execute(scope, key, fingerprint, oversized);
            Outcome second = capped.execute(scope, key, fingerprint, oversized);
            Outcome third = capped.execute(scope, key, fingerprint, oversized);

            assertThat(first).isEqualTo(new Outcome.Executed(StoredResponse.of(200, new byte[17]), true, 1));
            StoredResponse marked = StoredResponse.of(200, Map.of(StoredResponse.BODY_OMITTED_HEADER, List.of("true")), new byte[0]);
            assertThat(List.of(second, third)).containsOnly(new Outcome.Replayed(marked));
            assertThat(runs).hasValue(1);
            assertThat(committedPayments()).isOne();
        }

        // ---- (g) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("a checked exception is wrapped; the message names the scope, not the key, and nothing commits")
        void checkedExceptionIsWrapped() throws Exception {
            IOException cause = new IOException("disk full");
            assertThatThrownBy(() -> idem.execute(scope, key, fingerprint, c -> {
                insertPayment(c, "p-1", 100);
                throw cause;
            })).isInstanceOf(dev.idem.OperationFailedException.class)
                    .hasCause(cause)
                    .hasMessageContaining("scope '" + scope + "'")
                    .hasMessageNotContaining(KEY_VALUE);

            assertThat(committedPayments()).isZero();
            assertThat(store.find(id())).isEmpty();
        }

        // ---- (h) ---------------------------------------------------------------------------------

        @Test
        @DisplayName("the work's connection is the claim's transaction: its row and the claim are invisible elsewhere until commit")
        void workRunsInTheClaimsTransaction() throws Exception {
            List<Long> seenInside = new ArrayList<>();
            List<Long> seenOutside = new ArrayList<>();
            List<Integer> claimStateInside = new ArrayList<>();
            List<Boolean> recordVisibleOutside = new ArrayList<>();

            Outcome outcome = idem.execute(scope, key, fingerprint, c -> {
                insertPayment(c, "p-1", 100);
                seenInside.add(payments(c));
                try (PreparedStatement ps = c.prepareStatement("SELECT state FROM idem_record WHERE scope = ? AND idem_key = ?")) {
                    ps.setString(1, scope.value());
                    ps.setString(2, KEY_VALUE);
                    try (ResultSet rs = ps.executeQuery()) {
                        claimStateInside.add(rs.next() ? rs.getInt(1) : -1);
                    }
                }
                // Another connection: PostgreSQL hides uncommitted rows; SQLite in WAL mode reads the last commit.
                try (Connection other = db.dataSource().getConnection()) {
                    seenOutside.add(payments(other));
                }
                recordVisibleOutside.add(store.find(new RecordKey(scope, key)).isPresent());
                return created("p-1");
            });

            assertThat(outcome).isEqualTo(new Outcome.Executed(created("p-1"), true, 1));
            assertThat(seenInside).containsExactly(1L);
            assertThat(claimStateInside).as("the claim, in progress, on the work's own connection").containsExactly(0);
            assertThat(seenOutside).as("the row, from another connection before commit").containsExactly(0L);
            assertThat(recordVisibleOutside).as("the claim, from another connection before commit").containsExactly(false);
            assertThat(committedPayments()).isEqualTo(1);
            assertThat(store.find(id())).isPresent();
        }

        // ---- join: in the caller's transaction ------------------------------------------------

        /** A connection with a transaction open, as a caller such as Spring's transaction manager holds it. */
        private Connection openTransaction() throws SQLException {
            Connection c = db.dataSource().getConnection();
            c.setAutoCommit(false);
            return c;
        }

        @Test
        @DisplayName("join: the work's row, the response and the caller's own later write commit in the caller's one commit, not before")
        void joinLeavesTheCommitToTheCaller() throws Exception {
            AtomicInteger runs = new AtomicInteger();
            try (Connection tx = openTransaction()) {
                Outcome outcome = idem.join(tx, scope, key, fingerprint, pay(runs));
                insertPayment(tx, "audit-1", 0); // the caller's own write, after idem ran

                assertThat(outcome).isEqualTo(new Outcome.Executed(created("p-1"), true, 1));
                assertThat(TransactionalIdem.shouldCommit(outcome)).isTrue();
                assertThat(tx.getAutoCommit()).as("join leaves the mode alone").isFalse();
                assertThat(payments(tx)).as("inside the transaction").isEqualTo(2);
                assertThat(committedPayments()).as("join committed nothing").isZero();
                assertThat(store.find(id())).as("nor the record").isEmpty();

                tx.commit();
            }
            assertThat(committedPayments()).isEqualTo(2);
            assertThat(store.find(id())).get().satisfies(r -> {
                assertThat(r.state()).isEqualTo(RecordState.COMPLETED);
                assertThat(r.response()).contains(created("p-1"));
            });

            try (Connection tx = openTransaction()) {
                Outcome again = idem.join(tx, scope, key, fingerprint, pay(runs));
                assertThat(again).isEqualTo(new Outcome.Replayed(created("p-1")));
                assertThat(TransactionalIdem.shouldCommit(again)).as("a replay rolls back").isFalse();
                tx.rollback();
            }
            assertThat(runs).hasValue(1);
        }

        @Test
        @DisplayName("join: work that throws propagates without a rollback by idem; the caller's rollback removes row and claim")
        void joinPropagatesAndTheCallerRollsBack() throws Exception {
            IllegalStateException boom = new IllegalStateException("ledger unavailable");
            try (Connection tx = openTransaction()) {
                assertThatThrownBy(() -> idem.join(tx, scope, key, fingerprint, c -> {
                    insertPayment(c, "p-1", 100);
                    throw boom;
                })).isSameAs(boom);
                assertThat(payments(tx)).as("idem did not roll back the caller's transaction").isEqualTo(1);
                assertThat(store.find(id())).as("the claim is still only in that transaction").isEmpty();
                tx.rollback();
            }
            assertThat(committedPayments()).isZero();
            assertThat(store.find(id())).isEmpty();

            AtomicInteger runs = new AtomicInteger();
            assertThat(idem.execute(scope, key, fingerprint, pay(runs))).isEqualTo(new Outcome.Executed(created("p-1"), true, 1));
            assertThat(runs).hasValue(1);
        }

        @Test
        @DisplayName("join: a 5xx is Executed(stored=false) and must roll back; a Mismatch must roll back too")
        void joinAnswersWhatMustRollBack() throws Exception {
            StoredResponse unavailable = StoredResponse.of(503, new byte[0]);
            try (Connection tx = openTransaction()) {
                Outcome outcome = idem.join(tx, scope, key, fingerprint, c -> {
                    insertPayment(c, "p-1", 100);
                    return unavailable;
                });
                assertThat(outcome).isEqualTo(new Outcome.Executed(unavailable, false, 1));
                assertThat(TransactionalIdem.shouldCommit(outcome)).isFalse();
                tx.rollback();
            }
            assertThat(committedPayments()).isZero();
            assertThat(store.find(id())).isEmpty();

            idem.execute(scope, key, fingerprint, pay(new AtomicInteger()));
            Fingerprint other = Fingerprint.builder().part("body", "{\"amount\":999}").build();
            try (Connection tx = openTransaction()) {
                Outcome outcome = idem.join(tx, scope, key, other, c -> {
                    throw new AssertionError("a mismatch runs nothing");
                });
                assertThat(outcome).isEqualTo(new Outcome.Mismatch());
                assertThat(TransactionalIdem.shouldCommit(outcome)).isFalse();
                tx.rollback();
            }
            assertThat(committedPayments()).isEqualTo(1);
        }

        @Test
        @DisplayName("join refuses a connection in auto-commit mode before writing anything; the message names the scope, not the key")
        void joinRefusesAutoCommit() throws Exception {
            try (Connection autoCommit = db.dataSource().getConnection()) {
                assertThat(autoCommit.getAutoCommit()).isTrue();
                assertThatThrownBy(() -> idem.join(autoCommit, scope, key, fingerprint, pay(new AtomicInteger())))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("auto-commit is on")
                        .hasMessageContaining(scope.toString())
                        .hasMessageNotContaining(KEY_VALUE);
            }
            assertThat(store.find(id())).isEmpty();
            assertThat(committedPayments()).isZero();
        }

        @Test
        @DisplayName("dataSource() is the store's")
        void dataSourceIsTheStores() {
            assertThat(idem.dataSource()).isSameAs(db.dataSource());
        }
    }

    @Test
    @DisplayName("shouldCommit: only an Executed whose response was stored")
    void shouldCommitOnlyAStoredExecution() {
        StoredResponse ok = StoredResponse.of(201, new byte[0]);
        assertThat(TransactionalIdem.shouldCommit(new Outcome.Executed(ok, true, 1))).isTrue();
        assertThat(TransactionalIdem.shouldCommit(new Outcome.Executed(ok, false, 1))).isFalse();
        assertThat(TransactionalIdem.shouldCommit(new Outcome.Replayed(ok))).isFalse();
        assertThat(TransactionalIdem.shouldCommit(new Outcome.InProgress(java.time.Duration.ofSeconds(1)))).isFalse();
        assertThat(TransactionalIdem.shouldCommit(new Outcome.Mismatch())).isFalse();
    }
}
