package dev.idem.upserts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.TransactionalIdem;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What only MariaDB needs checked: its collations, its affected-rows flag, InnoDB's deadlocks, large packets. */
class MariadbSpecificsTest {
    private static final Fingerprint FP = Fingerprint.builder().part("body", "{}").build();
    private static final Duration LONG = Duration.ofMinutes(10);

    private TestDatabase db;
    private JdbcIdempotencyStore store;

    @BeforeEach
    void open() {
        db = Backends.MARIADB.open();
        store = Backends.migratedStore(db);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static RecordKey id(Scope scope, String key) {
        return new RecordKey(scope, IdempotencyKey.of(key));
    }

    @Test
    @DisplayName("the dialect is detected from the product name, and keys and scopes compare byte for byte, not by the server's default collation")
    void keysCompareByteForByte() {
        assertThat(store.dialect()).isEqualTo(Dialect.MARIADB);
        Scope alice = Scope.of("alice", "POST /orders");
        Scope aliceSpace = Scope.of("alice ", "POST /orders");
        Scope aliceUpper = Scope.of("ALICE", "POST /orders");
        for (RecordKey id : List.of(id(alice, "key-1"), id(alice, "KEY-1"), id(aliceSpace, "key-1"), id(aliceUpper, "key-1"))) {
            assertThat(store.claim(new ClaimRequest(id, FP, LONG, LONG))).as(id.toString()).isInstanceOf(ClaimOutcome.Acquired.class);
        }
        Inbox inbox = Inbox.builder(store).build();
        inbox.migrate();
        assertThat(inbox.process("ledger", "m-1", (c, m) -> { }).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(inbox.process("ledger", "M-1", (c, m) -> { }).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(inbox.process("ledger", "m-1 ", (c, m) -> { }).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(inbox.process("ledger", "m-1", (c, m) -> { }).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
    }

    @Test
    @DisplayName("an 8 MiB body (the engine's default cap) is stored and replays byte for byte within the server's max_allowed_packet")
    void largeBodyReplays() throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT @@max_allowed_packet")) {
            rs.next();
            assertThat(rs.getLong(1)).as("max_allowed_packet must exceed the largest body; see the README").isGreaterThan(9L << 20);
        }
        byte[] body = new byte[8 << 20];
        new Random(7).nextBytes(body);
        RecordKey id = id(Scope.of("alice", "GET /export"), "big");
        ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) store.claim(new ClaimRequest(id, FP, LONG, LONG));
        store.complete(id, acquired.token(), StoredResponse.of(200, body), LONG);
        ClaimOutcome replay = store.claim(new ClaimRequest(id, FP, LONG, LONG));
        assertThat(replay).isInstanceOf(ClaimOutcome.Replay.class);
        assertThat(((ClaimOutcome.Replay) replay).response().body()).isEqualTo(body);
    }

    @Test
    @DisplayName("with useAffectedRows=true, writes that change nothing are not taken for lost leases, upserts still tell updated from stale")
    void affectedRowsInsteadOfFoundRows() throws SQLException {
        HikariConfig config = new HikariConfig();
        String url = db.dataSource().unwrap(HikariDataSource.class).getJdbcUrl();
        config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "useAffectedRows=true");
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        try (HikariDataSource affected = new HikariDataSource(config)) {
            JdbcIdempotencyStore onAffected = JdbcIdempotencyStore.builder(affected).build();
            RecordKey id = id(Scope.of("alice", "POST /pay"), "k");
            ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) onAffected.claim(new ClaimRequest(id, FP, LONG, LONG));
            RecoveryPoint point = RecoveryPoint.of("charged", "ch_1".getBytes(StandardCharsets.UTF_8));
            onAffected.checkpoint(id, acquired.token(), point);
            onAffected.checkpoint(id, acquired.token(), point);  // the same values again: 0 rows changed, the token still holds
            assertThatThrownBy(() -> onAffected.checkpoint(id, acquired.token() - 1, point)).isInstanceOf(LeaseLostException.class);
            onAffected.complete(id, acquired.token(), StoredResponse.of(200, new byte[0]), LONG);

            try (Connection c = affected.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE balance (account VARCHAR(64) PRIMARY KEY, amount INT, version BIGINT NOT NULL)");
                Upserts upserts = Upserts.of(c);
                assertThat(upserts.insertOrUpdate(c, "balance", List.of("account"), balance(10, 1))).isEqualTo(UpsertOutcome.INSERTED);
                assertThat(upserts.insertOrUpdate(c, "balance", List.of("account"), balance(10, 1)))
                        .as("an unguarded rewrite with the same values").isEqualTo(UpsertOutcome.UPDATED);
                assertThat(upserts.insertOrUpdate(c, "balance", List.of("account"), balance(20, 1), "version")).isEqualTo(UpsertOutcome.STALE);
                assertThat(upserts.insertOrUpdate(c, "balance", List.of("account"), balance(30, 2), "version")).isEqualTo(UpsertOutcome.UPDATED);
            }
        }
    }

    private static Map<String, Object> balance(int amount, long version) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("account", "acc");
        row.put("amount", amount);
        row.put("version", version);
        return row;
    }

    @Test
    @DisplayName("join refuses a transaction that already wrote, instead of letting a claim's rollback discard that write")
    void joinMustBeTheTransactionsFirstWork() throws Exception {
        TransactionalIdem idem = TransactionalIdem.of(Idem.builder().store(store).build());
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE audit (note VARCHAR(64) NOT NULL)");
            c.setAutoCommit(false);
            st.execute("INSERT INTO audit (note) VALUES ('written before the claim')");

            assertThatThrownBy(() -> idem.join(c, Scope.of("alice", "POST /payments"), IdempotencyKey.of("k-first-work"), FP,
                    tx -> StoredResponse.of(201, new byte[0])))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("must be the first work of its transaction");

            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM audit")) {
                rs.next();
                assertThat(rs.getInt(1)).as("the caller's earlier write is still in its transaction").isEqualTo(1);
            }
            c.rollback();
            c.setAutoCommit(true);
        }
        assertThat(store.find(new RecordKey(Scope.of("alice", "POST /payments"), IdempotencyKey.of("k-first-work")))).as("no claim")
                .isEmpty();
    }

    @Test
    @DisplayName("transactional executions waiting on one that rolls back are not failed by the deadlock InnoDB breaks between them")
    void transactionalWaitersOnARollback() throws Exception {
        TransactionalIdem idem = TransactionalIdem.of(Idem.builder().store(store).build());
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE payment (id VARCHAR(64) NOT NULL, amount INT NOT NULL)");
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 3; round++) {
                IdempotencyKey key = IdempotencyKey.of("pay-" + round);
                Scope scope = Scope.of("alice", "POST /payments");
                CountDownLatch holding = new CountDownLatch(1);
                CountDownLatch fail = new CountDownLatch(1);
                Future<Outcome> first = pool.submit(() -> idem.execute(scope, key, FP, c -> {
                    holding.countDown();
                    fail.await(30, TimeUnit.SECONDS);
                    throw new IllegalStateException("the first execution fails after claiming");
                }));
                assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
                List<Future<Outcome>> waiters = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    waiters.add(pool.submit(() -> idem.execute(scope, key, FP, c -> {
                        try (PreparedStatement ps = c.prepareStatement("INSERT INTO payment (id, amount) VALUES (?, 100)")) {
                            ps.setString(1, key.value());
                            ps.executeUpdate();
                        }
                        return StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));
                    })));
                }
                awaitClaimsWaiting(3);
                fail.countDown();
                assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
                List<Class<?>> outcomes = new ArrayList<>();
                for (Future<Outcome> waiter : waiters) {
                    outcomes.add(waiter.get(60, TimeUnit.SECONDS).getClass());
                }
                assertThat(outcomes).as("round " + round)
                        .containsExactlyInAnyOrder(Outcome.Executed.class, Outcome.Replayed.class, Outcome.Replayed.class);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM payment")) {
            rs.next();
            assertThat(rs.getInt(1)).as("one payment per key").isEqualTo(3);
        }
    }

    /** Waits until {@code sessions} sessions of this database run the store's claim insert (they wait on the uncommitted row). */
    private void awaitClaimsWaiting(int sessions) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            while (true) {
                try (ResultSet rs = st.executeQuery(
                        "SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE 'INSERT IGNORE INTO idem_record%'")) {
                    rs.next();
                    if (rs.getInt(1) >= sessions) {
                        return;
                    }
                }
                assertThat(System.nanoTime()).as(sessions + " claims never waited on the first one's uncommitted row").isLessThan(deadline);
                Thread.sleep(5);
            }
        }
    }
}
