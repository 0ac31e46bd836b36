package dev.idem.upserts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.InboxOutcome.Status;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.TransactionalIdem;
import dev.idem.jdbc.testing.Backends;
import dev.idem.jdbc.testing.DeadlockInjector;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxRelay;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every transaction idem owns completes when the database picks it as a <b>real</b> deadlock victim
 * (forced by {@link DeadlockInjector}), and says so to the caller where the transaction is the
 * caller's. One subclass per database that reports deadlocks (PostgreSQL, MariaDB).
 */
abstract class ForcedDeadlockContract {
    private TestDatabase db;
    private DeadlockInjector deadlocks;

    protected abstract Backends backend();

    @BeforeEach
    void open() throws SQLException {
        db = backend().open();
        deadlocks = new DeadlockInjector(db.dataSource(), backend());
        execute("CREATE TABLE ledger (id VARCHAR(100) PRIMARY KEY, amount INT NOT NULL)");
    }

    @AfterEach
    void close() {
        db.close();
    }

    // ---- the key store -------------------------------------------------------------------------------

    @Test
    void storeClaimCompleteAndPurgeRunAgainAfterADeadlock() throws SQLException {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(deadlocks).build();
        store.migrate();
        RecordKey id = new RecordKey(Scope.of("alice", "pay"), IdempotencyKey.of("key-1"));
        ClaimRequest request = new ClaimRequest(id, Fingerprint.builder().part("body", "1").build(), Duration.ofSeconds(30), Duration.ofMinutes(5));

        deadlocks.arm(sql -> sql.contains("INSERT") && sql.contains("idem_record"), 2);
        ClaimOutcome claimed = store.claim(request);
        assertThat(claimed).isInstanceOf(ClaimOutcome.Acquired.class);

        long token = ((ClaimOutcome.Acquired) claimed).token();
        deadlocks.arm(sql -> sql.startsWith("UPDATE") && sql.contains("idem_record"), 2);
        store.complete(id, token, StoredResponse.of(201, Map.of(), "done".getBytes(StandardCharsets.UTF_8)), Duration.ofMinutes(5));

        assertThat(deadlocks.injected()).isEqualTo(4);
        assertThat(store.find(id)).hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(RecordState.COMPLETED));
        assertThat(store.claim(request)).isInstanceOf(ClaimOutcome.Replay.class);
    }

    @Test
    void transactionalExecuteRunsItsTransactionAgainWhole() throws SQLException {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(deadlocks).build();
        store.migrate();
        TransactionalIdem tx = TransactionalIdem.of(Idem.builder().store(store).build());
        List<String> runs = new CopyOnWriteArrayList<>();
        deadlocks.arm(sql -> sql.contains("INSERT INTO ledger"), 2);

        Outcome outcome = tx.execute(Scope.of("alice", "pay"), IdempotencyKey.of("key-2"), Fingerprint.builder().part("body", "2").build(), c -> {
            runs.add("run");
            insertLedger(c, "p-1", 100);
            return StoredResponse.of(201, Map.of(), new byte[0]);
        });

        assertThat(outcome).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) outcome).stored()).isTrue();
        assertThat(runs).hasSize(3); // two attempts the database rolled back, one that committed
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(1);
        assertThat(deadlocks.injected()).isEqualTo(2);
    }

    // ---- the inbox -----------------------------------------------------------------------------------

    @Test
    void inboxClaimRunsAgainAndTheHandlerRunsOnce() throws SQLException {
        Inbox inbox = migratedInbox();
        List<String> runs = new CopyOnWriteArrayList<>();
        deadlocks.arm(sql -> sql.contains("INTO idem_inbox"), 2);

        InboxOutcome outcome = inbox.process("ledger", "m-1", (c, m) -> {
            runs.add(m.id());
            insertLedger(c, m.id(), 10);
        });

        assertThat(outcome.status()).isEqualTo(Status.PROCESSED);
        assertThat(runs).containsExactly("m-1");
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(1);
        assertThat(inbox.process("ledger", "m-1", (c, m) -> runs.add("again")).status()).isEqualTo(Status.DUPLICATE);
    }

    @Test
    void aDeadlockInTheHandlersWritesIsNotAFailedAttempt() throws SQLException {
        Inbox inbox = migratedInbox();
        deadlocks.arm(sql -> sql.contains("INSERT INTO ledger"), 2);

        InboxOutcome outcome = inbox.process("ledger", "m-2", (c, m) -> insertLedger(c, m.id(), 10));

        assertThat(outcome.status()).isEqualTo(Status.PROCESSED);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM idem_quarantine")).as("no failed attempt counted").isZero();
    }

    @Test
    void inboxBatchRunsAgainWholeAndBooksEachMessageOnce() throws SQLException {
        Inbox inbox = migratedInbox();
        List<InboxMessage> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(InboxMessage.of("b-" + i));
        }
        deadlocks.arm(sql -> sql.contains("INSERT INTO ledger"), 3);

        List<InboxOutcome> outcomes = inbox.processBatch("ledger", batch, (c, m) -> insertLedger(c, m.id(), 1));

        assertThat(outcomes).extracting(InboxOutcome::status).containsOnly(Status.PROCESSED);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(20);
        assertThat(deadlocks.injected()).isEqualTo(3);
    }

    @Test
    void attemptCountsAndQuarantineMovesRunAgain() throws SQLException {
        Inbox inbox = Inbox.builder(deadlocks).maxAttempts(2).build();
        inbox.migrate();
        InboxMessage poison = InboxMessage.of("poison", "x".getBytes(StandardCharsets.UTF_8), Map.of());
        deadlocks.arm(sql -> sql.contains("idem_quarantine"), 2);

        InboxOutcome first = inbox.recordFailure("ledger", poison, new IllegalStateException("bad"));
        deadlocks.arm(sql -> sql.contains("idem_quarantine"), 2);
        InboxOutcome second = inbox.recordFailure("ledger", poison, new IllegalStateException("bad"));

        assertThat(first.status()).isEqualTo(Status.FAILED);
        assertThat(first.attempts()).isEqualTo(1);
        assertThat(second.status()).isEqualTo(Status.QUARANTINED);
        assertThat(second.attempts()).isEqualTo(2);
        assertThat(inbox.quarantine().find("ledger", "poison")).hasValueSatisfying(q -> assertThat(q.attempts()).isEqualTo(2));
        assertThat(deadlocks.injected()).isEqualTo(4);
    }

    @Test
    void inboxPurgeRunsAgain() throws SQLException {
        Inbox inbox = Inbox.builder(deadlocks).retention(Duration.ofMillis(1)).build();
        inbox.migrate();
        for (int i = 0; i < 5; i++) {
            inbox.process("ledger", "old-" + i, (c, m) -> { });
        }
        execute("UPDATE idem_inbox SET expires_at = 0");
        deadlocks.arm(sql -> sql.startsWith("DELETE") && sql.contains("idem_inbox"), 1);

        assertThat(inbox.purge(100)).isEqualTo(5);
        assertThat(count("SELECT count(*) FROM idem_inbox")).isZero();
    }

    @Test
    void whenTheBoundIsSpentNothingIsWrittenAndTheErrorSaysSo() throws SQLException {
        Inbox inbox = migratedInbox();
        deadlocks.arm(sql -> sql.contains("INTO idem_inbox"), 1_000);

        assertThatThrownBy(() -> inbox.process("ledger", "m-3", (c, m) -> insertLedger(c, m.id(), 10)))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("gave up");
        deadlocks.disarm();
        assertThat(count("SELECT count(*) FROM ledger")).isZero();
        assertThat(count("SELECT count(*) FROM idem_inbox")).isZero();
        assertThat(deadlocks.injected()).isEqualTo(8);
    }

    @Test
    void inTheCallersTransactionTheCallerIsToldToRunItAgain() throws SQLException {
        Inbox inbox = migratedInbox();
        deadlocks.arm(sql -> sql.contains("INTO idem_inbox"), 1);
        try (Connection c = deadlocks.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> inbox.claim(c, "ledger", "m-4"))
                    .isInstanceOf(SQLTransactionRollbackException.class)
                    .hasMessageContaining("caller's transaction")
                    .hasMessageContaining("run the whole transaction again");
            c.rollback();
            assertThat(inbox.claim(c, "ledger", "m-4")).isTrue();
            c.commit();
        }
    }

    // ---- the outbox ----------------------------------------------------------------------------------

    @Test
    void relayLeaseMarkAndReleaseRunAgainAndPublishEachEventOnce() throws SQLException {
        Outbox outbox = Outbox.builder(deadlocks).build();
        outbox.migrate();
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 5; i++) {
                outbox.append(c, "payment", "p-" + i, "PaymentCaptured", new byte[] {(byte) i});
            }
            c.commit();
        }
        List<String> published = new CopyOnWriteArrayList<>();
        OutboxRelay relay = OutboxRelay.builder(outbox, m -> published.add(m.aggregateId())).build();
        deadlocks.arm(sql -> sql.contains("SKIP LOCKED"), 2);
        int first = relay.runOnce();
        deadlocks.arm(sql -> sql.contains("SET state = 1"), 2);
        first += relay.runOnce();

        assertThat(first + relay.runOnce()).isEqualTo(5);
        assertThat(published).containsExactlyInAnyOrder("p-0", "p-1", "p-2", "p-3", "p-4");
        assertThat(outbox.pendingCount()).isZero();
        assertThat(deadlocks.injected()).isEqualTo(2);
    }

    // ---- windowed totals and migrations ---------------------------------------------------------------

    @Test
    void recomputationRunsAgainWhole() {
        WindowedTotals totals = WindowedTotals.builder(deadlocks).name("charges").window(Duration.ofMinutes(1)).build();
        totals.migrate();
        Instant from = Instant.parse("2026-01-01T00:00:00Z");
        List<WindowedTotals.Event> events = List.of(
                new WindowedTotals.Event("e1", from.plusSeconds(1), "EUR", 100),
                new WindowedTotals.Event("e2", from.plusSeconds(61), "EUR", 50));
        deadlocks.arm(sql -> sql.contains("INSERT INTO idem_window_total "), 2);

        totals.recompute(from, from.plusSeconds(120), events);

        assertThat(totals.totals(from, from.plusSeconds(120))).extracting(WindowedTotals.WindowTotal::sum).containsExactly(100L, 50L);
        assertThat(deadlocks.injected()).isEqualTo(2);
    }

    @Test
    void migrationsRunAgain() throws SQLException {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(deadlocks).build();
        deadlocks.arm(sql -> sql.contains("CREATE TABLE") && sql.contains("idem_record"), 1);

        store.migrate();

        assertThat(deadlocks.injected()).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM idem_record")).isZero();
    }

    // ---- helpers -------------------------------------------------------------------------------------

    private Inbox migratedInbox() {
        Inbox inbox = Inbox.builder(deadlocks).build();
        inbox.migrate();
        return inbox;
    }

    private static void insertLedger(Connection c, String id, int amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (id, amount) VALUES (?, ?)")) {
            ps.setString(1, id);
            ps.setInt(2, amount);
            ps.executeUpdate();
        }
    }

    private void execute(String statement) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }

    private long count(String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
