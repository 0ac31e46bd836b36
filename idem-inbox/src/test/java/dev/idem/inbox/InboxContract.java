package dev.idem.inbox;

import dev.idem.testing.Concurrently;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Sweeper;
import dev.idem.inbox.InboxOutcome.Status;
import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@link Inbox} contract on a real database. A dialect's test is a tiny subclass naming its
 * backend; every test here must pass unchanged. Each test gets a fresh database with the inbox
 * migrated and a {@code ledger} table without any unique constraint, so a second effect of a
 * message would show as a second row.
 */
abstract class InboxContract {
    protected static final String CONSUMER = "ledger";

    protected TestDatabase db;
    protected Inbox inbox;

    /** The backend this subclass tests. */
    protected abstract Backends backend();

    /** The database session behind {@code c}, where the database can name it (PostgreSQL's backend pid); else -1. */
    protected long sessionId(Connection c) throws SQLException {
        return -1;
    }

    /**
     * Returns once session {@code sessionId} waits on a lock, where the database lets us see that
     * (PostgreSQL); elsewhere at once (SQLite: the second writer waits for the write lock anyway).
     */
    protected void awaitLockWait(long sessionId) throws Exception {
    }

    @BeforeEach
    void openDatabase() throws SQLException {
        db = backend().open();
        inbox = newInbox(b -> b);
        inbox.migrate();
        execute("CREATE TABLE ledger (consumer TEXT NOT NULL, message_id TEXT NOT NULL, amount INTEGER NOT NULL)");
        execute("CREATE TABLE audit (note TEXT NOT NULL)");
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    // ---- helpers -----------------------------------------------------------------------------------

    protected Inbox newInbox(UnaryOperator<Inbox.Builder> settings) {
        return settings.apply(layout(Inbox.builder(db.dataSource()))).build();
    }

    /** The table layout every inbox of a test is built with: by default one unpartitioned table. */
    protected Inbox.Builder layout(Inbox.Builder builder) {
        return builder;
    }

    /**
     * Messages in the long run: 10,000 on a backend's own test; a subclass that runs the contract again
     * on another layout of the same backend runs it shorter, to keep the suite's time.
     */
    protected int longRunMessages() {
        return 10_000;
    }

    /** Statements naming the inbox table that a claim runs before its claim (a layout's per-id locks); none by default. */
    protected int statementsBeforeClaim() {
        return 0;
    }

    protected void execute(String statement) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(backend().sql(statement));
        }
    }

    protected long count(String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    protected long ledgerRows() throws SQLException {
        return count("SELECT count(*) FROM ledger");
    }

    protected static void insertLedger(Connection c, String messageId, int amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (consumer, message_id, amount) VALUES (?, ?, ?)")) {
            ps.setString(1, CONSUMER);
            ps.setString(2, messageId);
            ps.setInt(3, amount);
            ps.executeUpdate();
        }
    }

    /** A handler that books 10 for the message and counts its runs per id. */
    protected static InboxHandler booking(Map<String, AtomicInteger> runs) {
        return (c, m) -> {
            runs.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet();
            insertLedger(c, m.id(), 10);
        };
    }

    protected static List<Status> statuses(List<InboxOutcome> outcomes) {
        return outcomes.stream().map(InboxOutcome::status).toList();
    }

    protected static <T> List<T> concurrently(int threads, Callable<T> task) throws Exception {
        return Concurrently.call(threads, task);
    }

    static final class Boom extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Boom(String message) {
            super(message);
        }
    }

    // ---- duplicates ----------------------------------------------------------------------------------

    @Test
    @DisplayName("a message delivered three times runs its handler once; the repeats answer DUPLICATE")
    void duplicateDeliveryRunsHandlerOnce() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        List<Status> outcomes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            outcomes.add(inbox.process(CONSUMER, "msg-1", booking(runs)).status());
        }

        assertThat(outcomes).containsExactly(Status.PROCESSED, Status.DUPLICATE, Status.DUPLICATE);
        assertThat(runs.get("msg-1")).hasValue(1);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    @DisplayName("the same id under two consumers is processed once by each")
    void consumersAreSeparate() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        assertThat(inbox.process("billing", "shared-id", booking(runs)).status()).isEqualTo(Status.PROCESSED);
        assertThat(inbox.process("shipping", "shared-id", booking(runs)).status()).isEqualTo(Status.PROCESSED);
        assertThat(inbox.process("billing", "shared-id", booking(runs)).status()).isEqualTo(Status.DUPLICATE);

        assertThat(runs.get("shared-id")).hasValue(2);
    }

    @Test
    @DisplayName("a batch claims in one statement, handles each new id once (a repeat inside the batch too) and keeps the input order")
    void duplicateInsideBatchIsProcessedOnce() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<String> order = new CopyOnWriteArrayList<>();
        InboxHandler handler = (c, m) -> {
            order.add(m.id());
            booking(runs).handle(c, m);
        };

        List<InboxOutcome> first = inbox.processBatch(CONSUMER,
                List.of(InboxMessage.of("a"), InboxMessage.of("b"), InboxMessage.of("a"), InboxMessage.of("c"), InboxMessage.of("b")), handler);
        List<InboxOutcome> second = inbox.processBatch(CONSUMER, List.of(InboxMessage.of("c"), InboxMessage.of("d")), handler);

        assertThat(statuses(first)).containsExactly(Status.PROCESSED, Status.PROCESSED, Status.DUPLICATE, Status.PROCESSED, Status.DUPLICATE);
        assertThat(first).extracting(InboxOutcome::messageId).containsExactly("a", "b", "a", "c", "b");
        assertThat(statuses(second)).containsExactly(Status.DUPLICATE, Status.PROCESSED);
        assertThat(order).containsExactly("a", "b", "c", "d");
        assertThat(runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(ledgerRows()).isEqualTo(4);
        assertThat(inbox.processBatch(CONSUMER, List.of(), handler)).isEmpty();
    }

    @Test
    @DisplayName("a batch larger than one claim statement holds is claimed in chunks, each id once")
    void largeBatchIsChunked() throws Exception {
        List<InboxMessage> messages = new ArrayList<>();
        for (int i = 0; i < Inbox.CLAIM_CHUNK * 2 + 17; i++) {
            messages.add(InboxMessage.of("bulk-" + i));
        }
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        List<InboxOutcome> outcomes = inbox.processBatch(CONSUMER, messages, booking(runs));
        List<InboxOutcome> again = inbox.processBatch(CONSUMER, messages, booking(runs));

        assertThat(outcomes).allSatisfy(o -> assertThat(o.status()).isEqualTo(Status.PROCESSED));
        assertThat(again).allSatisfy(o -> assertThat(o.status()).isEqualTo(Status.DUPLICATE));
        assertThat(ledgerRows()).isEqualTo(messages.size());
    }

    // ---- concurrency ---------------------------------------------------------------------------------

    @Test
    @DisplayName("of 8 threads processing one id at once, one runs the handler and 7 see DUPLICATE")
    void concurrentDeliveriesProcessOnce() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        List<Status> outcomes = concurrently(8, () -> inbox.process(CONSUMER, "race", booking(runs)).status());

        assertThat(outcomes).filteredOn(s -> s == Status.PROCESSED).hasSize(1);
        assertThat(outcomes).filteredOn(s -> s == Status.DUPLICATE).hasSize(7);
        assertThat(runs.get("race")).hasValue(1);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    @DisplayName("a duplicate claimed while the first claim is uncommitted waits, answers false, and its transaction goes on and commits")
    void duplicateClaimDoesNotAbortTheCallersTransaction() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection first = db.dataSource().getConnection()) {
            first.setAutoCommit(false);
            assertThat(inbox.claim(first, CONSUMER, "contended")).isTrue();
            insertLedger(first, "contended", 10);

            CountDownLatch started = new CountDownLatch(1);
            java.util.concurrent.atomic.AtomicLong waiter = new java.util.concurrent.atomic.AtomicLong();
            Future<Boolean> second = pool.submit(() -> {
                try (Connection c = db.dataSource().getConnection()) {
                    waiter.set(sessionId(c));
                    started.countDown();
                    c.setAutoCommit(false);
                    boolean claimed = inbox.claim(c, CONSUMER, "contended");
                    // Another write after the duplicate claim, in the same transaction: it must still be usable.
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO audit (note) VALUES (?)")) {
                        ps.setString(1, "after duplicate claim");
                        ps.executeUpdate();
                    }
                    c.commit();
                    return claimed;
                }
            });
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            awaitLockWait(waiter.get());
            first.commit();
            first.setAutoCommit(true);  // the SQLite driver begins the next transaction (and takes the write lock) at commit

            assertThat(second.get(60, TimeUnit.SECONDS)).as("the second claim saw the first one's row").isFalse();
        } finally {
            pool.shutdownNow();
        }
        assertThat(count("SELECT count(*) FROM audit")).as("the duplicate's transaction committed its other write").isEqualTo(1);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    @DisplayName("a claim in the caller's transaction vanishes with its rollback and holds with its commit")
    void claimFollowsTheCallersTransaction() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThat(inbox.claim(c, CONSUMER, "tx-1")).isTrue();
            c.rollback();
            assertThat(inbox.claim(c, CONSUMER, "tx-1")).as("the rolled-back claim left nothing").isTrue();
            assertThat(inbox.claimBatch(c, CONSUMER, List.of("tx-1", "tx-2", "tx-3", "tx-2"))).as("tx-1 is already claimed in this transaction")
                    .containsExactly("tx-2", "tx-3");
            c.commit();
            assertThat(inbox.claimBatch(c, CONSUMER, List.of("tx-3", "tx-4"))).containsExactly("tx-4");
            c.commit();
        }
        assertThat(inbox.process(CONSUMER, "tx-2", (c, m) -> insertLedger(c, m.id(), 1)).status()).isEqualTo(Status.DUPLICATE);
        assertThat(ledgerRows()).isZero();
    }

    @Test
    @DisplayName("a claim on an auto-commit connection is refused: it would commit on its own")
    void claimRefusesAutoCommit() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> inbox.claim(c, CONSUMER, "auto")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit");
        }
        assertThat(inbox.process(CONSUMER, "auto", (c, m) -> { }).status()).isEqualTo(Status.PROCESSED);
    }

    // ---- failures and the quarantine ---------------------------------------------------------------------

    @Test
    @DisplayName("a failing handler's writes roll back, but its attempt is counted durably (a new Inbox instance continues the count)")
    void failureRollsBackAndCountsTheAttempt() throws Exception {
        InboxHandler failing = (c, m) -> {
            insertLedger(c, m.id(), 10);
            throw new Boom("ledger down");
        };

        InboxOutcome first = inbox.process(CONSUMER, "flaky", failing);
        InboxOutcome second = newInbox(b -> b).process(CONSUMER, "flaky", failing);

        assertThat(first.status()).isEqualTo(Status.FAILED);
        assertThat(first.attempts()).isEqualTo(1);
        assertThat(first.failure()).containsInstanceOf(Boom.class);
        assertThat(first.settled()).isFalse();
        assertThat(second.status()).isEqualTo(Status.FAILED);
        assertThat(second.attempts()).isEqualTo(2);
        assertThat(ledgerRows()).as("the failed attempts' writes were rolled back").isZero();
        assertThat(inbox.quarantine().list(CONSUMER, 10)).isEmpty();

        InboxOutcome fixed = inbox.process(CONSUMER, "flaky", (c, m) -> insertLedger(c, m.id(), 10));
        assertThat(fixed.status()).isEqualTo(Status.PROCESSED);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    @DisplayName("a checked exception and a SQL error inside the handler count as failures; the transaction is rolled back cleanly")
    void checkedAndSqlFailures() throws Exception {
        InboxOutcome checked = inbox.process(CONSUMER, "checked", (c, m) -> {
            throw new java.io.IOException("disk");
        });
        InboxOutcome sql = inbox.process(CONSUMER, "bad-sql", (c, m) -> {
            insertLedger(c, m.id(), 1);
            try (Statement st = c.createStatement()) {
                st.execute("INSERT INTO no_such_table VALUES (1)");
            }
        });

        assertThat(checked.status()).isEqualTo(Status.FAILED);
        assertThat(checked.failure()).containsInstanceOf(java.io.IOException.class);
        assertThat(sql.status()).isEqualTo(Status.FAILED);
        assertThat(sql.failure()).containsInstanceOf(SQLException.class);
        assertThat(ledgerRows()).isZero();
        assertThat(inbox.process(CONSUMER, "bad-sql", (c, m) -> insertLedger(c, m.id(), 1)).status()).isEqualTo(Status.PROCESSED);
    }

    @Test
    @DisplayName("a poison message is quarantined after N attempts while other messages flow; later deliveries skip the handler")
    void poisonMessageIsQuarantinedWhileOthersFlow() throws Exception {
        Inbox strict = newInbox(b -> b.maxAttempts(3).quarantineError(QuarantineError.CLASS_AND_MESSAGE));
        AtomicInteger poisonRuns = new AtomicInteger();
        String longError = "x".repeat(5000);
        InboxHandler handler = (c, m) -> {
            if (m.id().equals("poison")) {
                poisonRuns.incrementAndGet();
                insertLedger(c, m.id(), 666);
                throw new Boom(longError);
            }
            insertLedger(c, m.id(), 10);
        };
        InboxMessage poison = InboxMessage.of("poison", "{\"amount\":-1}".getBytes(StandardCharsets.UTF_8),
                Map.of("content-type", "application/json", "trace", "a=b\nc"));

        List<Status> poisonOutcomes = new ArrayList<>();
        List<Status> goodOutcomes = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            poisonOutcomes.add(strict.process(CONSUMER, poison, handler).status());
            goodOutcomes.add(strict.process(CONSUMER, "good-" + round, handler).status());
        }

        assertThat(poisonOutcomes).containsExactly(Status.FAILED, Status.FAILED, Status.QUARANTINED, Status.QUARANTINED, Status.QUARANTINED);
        assertThat(goodOutcomes).containsOnly(Status.PROCESSED);
        assertThat(poisonRuns).as("the handler does not run for a quarantined message").hasValue(3);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'poison'")).isZero();
        assertThat(ledgerRows()).isEqualTo(5);

        List<QuarantinedMessage> quarantined = strict.quarantine().list(CONSUMER, 10);
        assertThat(quarantined).hasSize(1);
        QuarantinedMessage q = quarantined.get(0);
        assertThat(q.messageId()).isEqualTo("poison");
        assertThat(q.consumer()).isEqualTo(CONSUMER);
        assertThat(q.attempts()).isEqualTo(3);
        assertThat(q.payload()).isEqualTo(poison.payload());
        assertThat(q.headers()).containsExactlyEntriesOf(new LinkedHashMap<>(poison.headers()));
        assertThat(q.errorClass()).isEqualTo(Boom.class.getName());
        assertThat(q.errorMessage()).hasValueSatisfying(text -> assertThat(text).hasSize(Inbox.MAX_ERROR_MESSAGE));
        assertThat(q.firstFailure()).isBeforeOrEqualTo(q.lastFailure());
        assertThat(q.toString()).doesNotContain("amount").doesNotContain(longError.substring(0, 20));
        assertThat(strict.quarantine().find(CONSUMER, "poison")).isPresent();
        assertThat(strict.quarantine().find(CONSUMER, "good-1")).isEmpty();
        assertThat(strict.quarantine().list("another-consumer", 10)).isEmpty();
    }

    /**
     * A handler's exception text can quote the message or the database (a card number in a parse
     * error, a value in a constraint violation), and the quarantine outlives the logs: by default it
     * records the failure's class alone, for the delivery that quarantined it and for a failed replay.
     */
    @Test
    @DisplayName("by default the quarantine records a failure's class, never its message (which can quote payload data), also for a failed replay")
    void quarantineRecordsTheClassNameByDefault() throws Exception {
        Inbox once = newInbox(b -> b.maxAttempts(1));
        String card = "4111 1111 1111 1111";
        InboxOutcome outcome = once.process(CONSUMER, InboxMessage.of("card-1", card.getBytes(StandardCharsets.UTF_8)), (c, m) -> {
            throw new Boom("card " + new String(m.payload(), StandardCharsets.UTF_8) + " declined");
        });
        assertThat(outcome.status()).isEqualTo(Status.QUARANTINED);
        assertThat(outcome.failure()).hasValueSatisfying(e -> assertThat(e).hasMessageContaining(card));
        assertThat(once.quarantine().find(CONSUMER, "card-1")).hasValueSatisfying(q -> {
            assertThat(q.errorClass()).isEqualTo(Boom.class.getName());
            assertThat(q.errorMessage()).isEmpty();
        });

        once.quarantine().replay(CONSUMER, "card-1", (c, m) -> {
            throw new IllegalStateException("still declined: " + card);
        });
        assertThat(once.quarantine().find(CONSUMER, "card-1")).hasValueSatisfying(q -> {
            assertThat(q.attempts()).isEqualTo(2);
            assertThat(q.errorClass()).isEqualTo(IllegalStateException.class.getName());
            assertThat(q.errorMessage()).isEmpty();
        });
        assertThat(count("SELECT count(*) FROM idem_quarantine WHERE error_message IS NOT NULL")).isZero();
    }

    @Test
    @DisplayName("quarantineError records the class and message, or a function's text, each bounded; a function that fails records only that it failed")
    void quarantineErrorChoosesWhatIsRecorded() {
        Inbox withMessage = newInbox(b -> b.maxAttempts(1).quarantineError(QuarantineError.CLASS_AND_MESSAGE));
        withMessage.process(CONSUMER, "with-message", (c, m) -> {
            throw new Boom("declined by the gateway");
        });
        assertThat(withMessage.quarantine().find(CONSUMER, "with-message"))
                .hasValueSatisfying(q -> assertThat(q.errorMessage()).hasValue("declined by the gateway"));

        Inbox coded = newInbox(b -> b.maxAttempts(1).quarantineError(e -> "code " + e.getClass().getSimpleName() + " " + "x".repeat(5000)));
        coded.process(CONSUMER, "coded", (c, m) -> {
            throw new Boom("card 4111 1111 1111 1111");
        });
        assertThat(coded.quarantine().find(CONSUMER, "coded")).hasValueSatisfying(q -> {
            assertThat(q.errorClass()).isEqualTo(Boom.class.getName());
            assertThat(q.errorMessage()).hasValueSatisfying(text ->
                    assertThat(text).startsWith("code Boom ").hasSize(Inbox.MAX_ERROR_MESSAGE).doesNotContain("4111"));
        });

        Inbox failing = newInbox(b -> b.maxAttempts(1).quarantineError(e -> {
            throw new IllegalStateException("the describer broke on " + e.getMessage());
        }));
        InboxOutcome outcome = failing.process(CONSUMER, "describer-fails", (c, m) -> {
            throw new Boom("card 4111 1111 1111 1111");
        });
        assertThat(outcome.status()).isEqualTo(Status.QUARANTINED);
        assertThat(failing.quarantine().find(CONSUMER, "describer-fails")).hasValueSatisfying(q -> {
            assertThat(q.errorClass()).isEqualTo(Boom.class.getName());
            assertThat(q.errorMessage()).hasValue("(quarantineError's function threw java.lang.IllegalStateException)");
        });

        Inbox silent = newInbox(b -> b.maxAttempts(1).quarantineError(e -> null));
        silent.process(CONSUMER, "silent", (c, m) -> {
            throw new Boom("card 4111 1111 1111 1111");
        });
        assertThat(silent.quarantine().find(CONSUMER, "silent")).hasValueSatisfying(q -> assertThat(q.errorMessage()).isEmpty());
    }

    /**
     * An id that comes again with another payload is a producer that reused an id: the inbox settles
     * it unprocessed all the same, but reports it where it holds the first payload to compare with (a
     * repeat in the same batch, a quarantined message). A processed message keeps no payload, so its
     * repeats are plain duplicates, whatever they carry.
     */
    @Test
    @DisplayName("a delivery under a known id with another payload is reported where the inbox can tell (a repeat in one batch, a quarantined message), not after processing")
    void differentPayloadUnderAKnownIdIsReportedWhereTheInboxCanTell() throws Exception {
        List<String> differ = new CopyOnWriteArrayList<>();
        Inbox once = newInbox(b -> b.maxAttempts(1).listener(new InboxListener() {
            @Override
            public void payloadDiffers(String consumer, String messageId) {
                differ.add(consumer + " " + messageId);
            }
        }));
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        List<InboxOutcome> batch = once.processBatch(CONSUMER, List.of(message("a", "1"), message("a", "2"), message("b", "x"),
                message("b", "x")), booking(runs));
        assertThat(statuses(batch)).containsExactly(Status.PROCESSED, Status.DUPLICATE, Status.PROCESSED, Status.DUPLICATE);
        assertThat(differ).containsExactly(CONSUMER + " a");

        once.process(CONSUMER, message("q", "first"), (c, m) -> {
            throw new Boom("poison");
        });
        assertThat(once.process(CONSUMER, message("q", "other"), booking(runs)).status()).isEqualTo(Status.QUARANTINED);
        assertThat(once.process(CONSUMER, message("q", "first"), booking(runs)).status()).isEqualTo(Status.QUARANTINED);
        assertThat(once.process(CONSUMER, "q", booking(runs)).status()).as("known by its id only").isEqualTo(Status.QUARANTINED);
        assertThat(statuses(once.processBatch(CONSUMER, List.of(message("q", "third"), message("c", "1")), booking(runs))))
                .containsExactly(Status.QUARANTINED, Status.PROCESSED);
        assertThat(differ).containsExactly(CONSUMER + " a", CONSUMER + " q", CONSUMER + " q");

        assertThat(once.process(CONSUMER, message("b", "changed"), booking(runs)).status()).isEqualTo(Status.DUPLICATE);
        assertThat(differ).as("a processed message keeps no payload to compare with").hasSize(3);
        assertThat(runs.keySet()).containsExactlyInAnyOrder("a", "b", "c");
    }

    private static InboxMessage message(String id, String payload) {
        return InboxMessage.of(id, payload.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("the delivery that reaches the limit answers QUARANTINED with its failure and is settled")
    void quarantiningDeliveryCarriesItsFailure() {
        Inbox once = newInbox(b -> b.maxAttempts(1));

        InboxOutcome outcome = once.process(CONSUMER, "one-strike", (c, m) -> {
            throw new Boom("no");
        });
        InboxOutcome later = once.process(CONSUMER, "one-strike", (c, m) -> {
            throw new AssertionError("must not run");
        });

        assertThat(outcome.status()).isEqualTo(Status.QUARANTINED);
        assertThat(outcome.attempts()).isEqualTo(1);
        assertThat(outcome.failure()).containsInstanceOf(Boom.class);
        assertThat(outcome.settled()).isTrue();
        assertThat(later.status()).isEqualTo(Status.QUARANTINED);
        assertThat(later.failure()).isEmpty();
    }

    @Test
    @DisplayName("a batch whose handler fails for one message falls back to one transaction each: the poison is counted, the rest commit")
    void failingBatchFallsBackToSingleMessages() throws Exception {
        Inbox strict = newInbox(b -> b.maxAttempts(2));
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        InboxHandler handler = (c, m) -> {
            booking(runs).handle(c, m);
            if (m.id().equals("bad")) {
                throw new Boom("bad message");
            }
        };
        List<InboxMessage> batch = List.of(InboxMessage.of("ok-1"), InboxMessage.of("bad"), InboxMessage.of("ok-2"), InboxMessage.of("ok-1"));

        List<InboxOutcome> first = strict.processBatch(CONSUMER, batch, handler);
        List<InboxOutcome> second = strict.processBatch(CONSUMER, batch, handler);

        assertThat(statuses(first)).containsExactly(Status.PROCESSED, Status.FAILED, Status.PROCESSED, Status.DUPLICATE);
        assertThat(first.get(1).attempts()).isEqualTo(1);
        assertThat(statuses(second)).containsExactly(Status.DUPLICATE, Status.QUARANTINED, Status.DUPLICATE, Status.DUPLICATE);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'ok-1'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'ok-2'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'bad'")).isZero();
        assertThat(strict.quarantine().list(CONSUMER, 10)).extracting(QuarantinedMessage::messageId).containsExactly("bad");
    }

    @Test
    @DisplayName("processBatchAtOnce hands the batch's new messages to the handler in one call, in order, each once; no call when none is new")
    void batchHandlerGetsTheNewMessagesAtOnce() throws Exception {
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        InboxBatchHandler handler = (c, messages) -> {
            calls.add(messages.stream().map(InboxMessage::id).toList());
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (consumer, message_id, amount) VALUES (?, ?, ?)")) {
                for (InboxMessage m : messages) {
                    ps.setString(1, CONSUMER);
                    ps.setString(2, m.id());
                    ps.setInt(3, 10);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        };
        inbox.process(CONSUMER, "seen", booking(new ConcurrentHashMap<>()));

        List<InboxOutcome> first = inbox.processBatchAtOnce(CONSUMER, List.of(InboxMessage.of("b"), InboxMessage.of("seen"),
                InboxMessage.of("a"), InboxMessage.of("b"), InboxMessage.of("c")), handler);
        List<InboxOutcome> again = inbox.processBatchAtOnce(CONSUMER, List.of(InboxMessage.of("a"), InboxMessage.of("c")), handler);

        assertThat(statuses(first)).containsExactly(Status.PROCESSED, Status.DUPLICATE, Status.PROCESSED, Status.DUPLICATE, Status.PROCESSED);
        assertThat(first).extracting(InboxOutcome::messageId).containsExactly("b", "seen", "a", "b", "c");
        assertThat(statuses(again)).containsExactly(Status.DUPLICATE, Status.DUPLICATE);
        assertThat(calls).containsExactly(List.of("b", "a", "c"));
        assertThat(ledgerRows()).isEqualTo(4);
        assertThat(inbox.processBatchAtOnce(CONSUMER, List.of(), handler)).isEmpty();
        assertThat(calls).hasSize(1);
    }

    @Test
    @DisplayName("ids with the characters of array and CSV syntax, spaces and non-ASCII letters are claimed exactly as given, each once")
    void idsWithSyntaxCharactersAreClaimedAsGiven() throws Exception {
        // The claim sends a batch's ids to the database as one value: none of these may split, merge
        // or change an id on the way.
        List<String> ids = List.of("{a,b}", "\"quoted\"", "back\\slash", "com,ma", " lead and trail ", "NULL", "null", "",
                "\u00e9t\u00e9 \u65e5\u672c", "{}", "a\tb".replace('\t', ' '), "'single'", "semi;colon", "x".repeat(255));
        List<InboxMessage> messages = ids.stream().filter(id -> !id.isEmpty()).map(InboxMessage::of).toList();
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        List<InboxOutcome> first = inbox.processBatch(CONSUMER, messages, booking(runs));
        List<InboxOutcome> again = inbox.processBatch(CONSUMER, messages, booking(runs));

        assertThat(first).extracting(InboxOutcome::messageId).containsExactlyElementsOf(messages.stream().map(InboxMessage::id).toList());
        assertThat(statuses(first)).containsOnly(Status.PROCESSED);
        assertThat(statuses(again)).containsOnly(Status.DUPLICATE);
        assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(messages.stream().map(InboxMessage::id).toList());
        assertThat(ledgerRows()).isEqualTo(messages.size());
    }

    /**
     * A lone surrogate is not a character: the drivers write it as {@code ?}, so two such ids would
     * become one row and the second message a duplicate. Each entry point refuses them before the
     * database, with an error that names the rule and not the id, and nothing is written.
     */
    @Test
    @DisplayName("ids with an unpaired surrogate are refused at every entry point, naming the rule, never merged into one row")
    void idsWithUnpairedSurrogatesAreRefused() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<String> invalid = List.of("pay-\uD800", "pay-\uDBFF", "pay-\uDC00x", "\uDE00\uD83D", "x".repeat(254) + "\uD83D");
        for (String id : invalid) {
            assertThatThrownBy(() -> inbox.process(CONSUMER, id, booking(runs)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("unpaired surrogate")
                    .hasMessageNotContaining(id);
            assertThatThrownBy(() -> InboxMessage.of(id)).isInstanceOf(IllegalArgumentException.class);
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                assertThatThrownBy(() -> inbox.claim(c, CONSUMER, id)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("unpaired surrogate");
                c.rollback();
            }
        }
        assertThat(runs).isEmpty();
        assertThat(count("SELECT count(*) FROM idem_inbox")).isZero();
        assertThat(count("SELECT count(*) FROM idem_quarantine")).isZero();
    }

    /** Characters outside the Basic Multilingual Plane (as proper surrogate pairs) are stored and compared as given. */
    @Test
    @DisplayName("ids with supplementary characters are stored as given: ids that differ only in one are distinct, and each repeat is a duplicate")
    void idsWithSupplementaryCharactersAreStoredAsGiven() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<String> ids = List.of("pay-\uD83D\uDE00", "pay-\uD83D\uDE01", "\uD834\uDD1E clef", "\uD83D\uDCB3".repeat(127) + "x");
        for (String id : ids) {
            assertThat(inbox.process(CONSUMER, id, booking(runs)).status()).isEqualTo(Status.PROCESSED);
        }
        for (String id : ids) {
            assertThat(inbox.process(CONSUMER, id, booking(runs)).status()).isEqualTo(Status.DUPLICATE);
        }
        assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        List<String> stored = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT message_id FROM idem_inbox")) {
            while (rs.next()) {
                stored.add(rs.getString(1));
            }
        }
        assertThat(stored).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    @DisplayName("a batch of only new, distinct messages, larger than a claim chunk and out of id order, answers each PROCESSED in input order and reports each once")
    void allNewBatchKeepsInputOrder() throws Exception {
        // The claim sorts the ids and a batch of only new ids skips the per-id split: the answers must
        // still follow the input, not the claim's order.
        List<InboxMessage> messages = new ArrayList<>();
        for (int i = 0; i < Inbox.CLAIM_CHUNK + 100; i++) {
            messages.add(InboxMessage.of("new-" + (i * 7919 % (Inbox.CLAIM_CHUNK + 100))));
        }
        List<String> processed = new CopyOnWriteArrayList<>();
        Inbox observed = newInbox(b -> b.listener(new InboxListener() {
            @Override
            public void processed(String consumer, String messageId) {
                processed.add(messageId);
            }
        }));
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        InboxBatchHandler handler = (c, batch) -> {
            calls.add(batch.stream().map(InboxMessage::id).toList());
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (consumer, message_id, amount) VALUES (?, ?, ?)")) {
                for (InboxMessage m : batch) {
                    ps.setString(1, CONSUMER);
                    ps.setString(2, m.id());
                    ps.setInt(3, 10);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        };

        List<InboxOutcome> outcomes = observed.processBatchAtOnce(CONSUMER, messages, handler);

        List<String> input = messages.stream().map(InboxMessage::id).toList();
        assertThat(outcomes).extracting(InboxOutcome::messageId).containsExactlyElementsOf(input);
        assertThat(outcomes).extracting(InboxOutcome::status).containsOnly(Status.PROCESSED);
        assertThat(calls).containsExactly(input);
        assertThat(processed).containsExactlyInAnyOrderElementsOf(input);
        assertThat(ledgerRows()).isEqualTo(input.size());
    }

    @Test
    @DisplayName("processBatchAtOnce of 100 messages runs one claim statement, not one per message; duplicates add one")
    void batchRunsABoundedNumberOfStatements() throws Exception {
        StatementCounter counter = new StatementCounter(db.dataSource());
        Inbox counted = layout(Inbox.builder(counter.dataSource())).build();
        InboxBatchHandler oneStatement = (c, messages) -> {
            String rows = String.join(", ", Collections.nCopies(messages.size(), "(?, ?, 10)"));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (consumer, message_id, amount) VALUES " + rows)) {
                int i = 1;
                for (InboxMessage m : messages) {
                    ps.setString(i++, CONSUMER);
                    ps.setString(i++, m.id());
                }
                ps.executeUpdate();
            }
        };
        List<InboxMessage> fresh = new ArrayList<>();
        List<InboxMessage> halfSeen = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            fresh.add(InboxMessage.of("m-" + i));
            halfSeen.add(InboxMessage.of("m-" + (i + 50)));
        }
        counter.reset();

        List<InboxOutcome> first = counted.processBatchAtOnce(CONSUMER, fresh, oneStatement);
        List<String> firstStatements = counter.executed();
        counter.reset();
        List<InboxOutcome> second = counted.processBatchAtOnce(CONSUMER, halfSeen, oneStatement);

        assertThat(first).extracting(InboxOutcome::status).containsOnly(Status.PROCESSED).hasSize(100);
        assertThat(firstStatements).as("statements of a batch of 100 new messages").hasSizeLessThanOrEqualTo(3 + statementsBeforeClaim())
                .filteredOn(sql -> sql.contains("idem_inbox")).hasSize(1 + statementsBeforeClaim());
        assertThat(statuses(second).subList(0, 50)).containsOnly(Status.DUPLICATE);
        assertThat(statuses(second).subList(50, 100)).containsOnly(Status.PROCESSED);
        assertThat(counter.executed()).as("statements of a batch of 50 duplicates and 50 new messages")
                .hasSizeLessThanOrEqualTo(3 + statementsBeforeClaim()).filteredOn(sql -> sql.contains("idem_inbox"))
                .hasSize(2 + statementsBeforeClaim());
        assertThat(ledgerRows()).isEqualTo(150);
    }

    @Test
    @DisplayName("a failing processBatchAtOnce falls back to one message per call and transaction: the poison is counted, the rest commit")
    void failingBatchHandlerFallsBackToSingleMessages() throws Exception {
        Inbox strict = newInbox(b -> b.maxAttempts(2));
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        InboxBatchHandler handler = (c, messages) -> {
            sizes.add(messages.size());
            for (InboxMessage m : messages) {
                insertLedger(c, m.id(), 10);
                if (m.id().equals("bad")) {
                    throw new Boom("bad message");
                }
            }
        };
        List<InboxMessage> batch = List.of(InboxMessage.of("ok-1"), InboxMessage.of("bad"), InboxMessage.of("ok-2"));

        List<InboxOutcome> first = strict.processBatchAtOnce(CONSUMER, batch, handler);
        List<InboxOutcome> second = strict.processBatchAtOnce(CONSUMER, batch, handler);

        assertThat(statuses(first)).containsExactly(Status.PROCESSED, Status.FAILED, Status.PROCESSED);
        assertThat(statuses(second)).containsExactly(Status.DUPLICATE, Status.QUARANTINED, Status.DUPLICATE);
        assertThat(sizes).containsExactly(3, 1, 1, 1, 1, 1);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'ok-1'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'ok-2'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'bad'")).isZero();
    }

    @Test
    @DisplayName("an adapter with its own transaction records a failure after rolling back; the limit quarantines, and claims then answer false")
    void recordFailureAfterCallersRollback() throws Exception {
        Inbox strict = newInbox(b -> b.maxAttempts(2));
        InboxMessage message = InboxMessage.of("own-tx", new byte[] {1, 2, 3});
        List<Status> outcomes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                assertThat(strict.claim(c, CONSUMER, message.id())).isTrue();
                insertLedger(c, message.id(), 5);
                c.rollback();
            }
            outcomes.add(strict.recordFailure(CONSUMER, message, new Boom("adapter work failed")).status());
        }
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThat(strict.claim(c, CONSUMER, message.id())).as("a quarantined message is not claimable").isFalse();
            c.rollback();
        }

        assertThat(outcomes).containsExactly(Status.FAILED, Status.QUARANTINED);
        assertThat(strict.quarantine().find(CONSUMER, "own-tx")).hasValueSatisfying(q -> assertThat(q.payload()).containsExactly(1, 2, 3));
        assertThat(ledgerRows()).isZero();
    }

    @Test
    @DisplayName("recordFailure for a message the inbox holds as processed or dropped (a commit that failed only for the client) counts nothing and answers DUPLICATE")
    void recordFailureOfAProcessedMessageIsADuplicate() throws Exception {
        Inbox once = newInbox(b -> b.maxAttempts(1));
        InboxMessage message = InboxMessage.of("committed", "secret-payload".getBytes(StandardCharsets.UTF_8));
        assertThat(once.process(CONSUMER, message, (c, m) -> insertLedger(c, m.id(), 3)).status()).isEqualTo(Status.PROCESSED);
        once.process(CONSUMER, "given-up", (c, m) -> {
            throw new Boom("never works");
        });
        assertThat(once.quarantine().drop(CONSUMER, "given-up")).isTrue();

        InboxOutcome processed = once.recordFailure(CONSUMER, message, new Boom("the COMMIT's answer was lost"));
        InboxOutcome dropped = once.recordFailure(CONSUMER, InboxMessage.of("given-up"), new Boom("late failure"));

        assertThat(processed.status()).isEqualTo(Status.DUPLICATE);
        assertThat(processed.attempts()).isZero();
        assertThat(processed.settled()).isTrue();
        assertThat(dropped.status()).isEqualTo(Status.DUPLICATE);
        assertThat(count("SELECT count(*) FROM " + once.quarantineTableName())).as("no attempt counted, no payload kept").isZero();
        assertThat(once.quarantine().list(CONSUMER, 10)).isEmpty();
        assertThat(once.process(CONSUMER, message, (c, m) -> insertLedger(c, m.id(), 3)).status()).isEqualTo(Status.DUPLICATE);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    @DisplayName("replay after a fix processes the quarantined message once and clears it; a failing replay keeps it with one more attempt")
    void replayAfterFix() throws Exception {
        Inbox once = newInbox(b -> b.maxAttempts(1).quarantineError(QuarantineError.CLASS_AND_MESSAGE));
        InboxMessage message = InboxMessage.of("to-fix", "{\"amount\":7}".getBytes(StandardCharsets.UTF_8), Map.of("k", "v"));
        once.process(CONSUMER, message, (c, m) -> {
            throw new Boom("bug");
        });
        AtomicInteger fixedRuns = new AtomicInteger();
        InboxHandler fixed = (c, m) -> {
            fixedRuns.incrementAndGet();
            assertThat(new String(m.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"amount\":7}");
            assertThat(m.headers()).containsEntry("k", "v");
            insertLedger(c, m.id(), 7);
        };

        InboxOutcome stillBroken = once.quarantine().replay(CONSUMER, "to-fix", (c, m) -> {
            insertLedger(c, m.id(), 7);
            throw new Boom("still a bug");
        });
        assertThat(stillBroken.status()).isEqualTo(Status.QUARANTINED);
        assertThat(stillBroken.attempts()).isEqualTo(2);
        assertThat(once.quarantine().find(CONSUMER, "to-fix")).hasValueSatisfying(q -> {
            assertThat(q.attempts()).isEqualTo(2);
            assertThat(q.errorMessage()).contains("still a bug");
        });
        assertThat(ledgerRows()).isZero();

        InboxOutcome replayed = once.quarantine().replay(CONSUMER, "to-fix", fixed);
        InboxOutcome again = once.quarantine().replay(CONSUMER, "to-fix", fixed);
        InboxOutcome redelivered = once.process(CONSUMER, message, fixed);

        assertThat(replayed.status()).isEqualTo(Status.PROCESSED);
        assertThat(again.status()).isEqualTo(Status.DUPLICATE);
        assertThat(redelivered.status()).isEqualTo(Status.DUPLICATE);
        assertThat(fixedRuns).hasValue(1);
        assertThat(ledgerRows()).isEqualTo(1);
        assertThat(once.quarantine().list(CONSUMER, 10)).isEmpty();
        assertThat(once.quarantine().replay(CONSUMER, "never-seen", fixed).status()).isEqualTo(Status.DUPLICATE);
    }

    @Test
    @DisplayName("drop removes a message from the quarantine without running it; later deliveries are duplicates")
    void dropGivesUp() throws Exception {
        Inbox once = newInbox(b -> b.maxAttempts(1));
        once.process(CONSUMER, "hopeless", (c, m) -> {
            throw new Boom("never works");
        });

        assertThat(once.quarantine().drop(CONSUMER, "hopeless")).isTrue();
        assertThat(once.quarantine().drop(CONSUMER, "hopeless")).isFalse();
        assertThat(once.quarantine().list(CONSUMER, 10)).isEmpty();
        assertThat(once.process(CONSUMER, "hopeless", (c, m) -> insertLedger(c, m.id(), 1)).status()).isEqualTo(Status.DUPLICATE);
        assertThat(once.quarantine().replay(CONSUMER, "hopeless", (c, m) -> insertLedger(c, m.id(), 1)).status()).isEqualTo(Status.DUPLICATE);
        assertThat(ledgerRows()).isZero();
    }

    @Test
    @DisplayName("listener hooks report processed, duplicate, failed, quarantined, replayed, dropped and purged; a throwing listener changes nothing")
    void listenerHooks() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        InboxListener recording = new InboxListener() {
            @Override
            public void processed(String consumer, String messageId) {
                events.add("processed " + messageId);
            }

            @Override
            public void duplicate(String consumer, String messageId) {
                events.add("duplicate " + messageId);
            }

            @Override
            public void failed(String consumer, String messageId, int attempts, Throwable cause) {
                events.add("failed " + messageId + " " + attempts);
            }

            @Override
            public void quarantined(String consumer, String messageId, int attempts) {
                events.add("quarantined " + messageId + " " + attempts);
            }

            @Override
            public void replayed(String consumer, String messageId) {
                events.add("replayed " + messageId);
            }

            @Override
            public void dropped(String consumer, String messageId) {
                events.add("dropped " + messageId);
            }

            @Override
            public void purged(int count) {
                events.add("purged " + count);
            }
        };
        Inbox observed = newInbox(b -> b.maxAttempts(2).retention(Duration.ofMillis(1)).listener(recording));
        InboxHandler failing = (c, m) -> {
            throw new Boom("x");
        };

        observed.process(CONSUMER, "m1", (c, m) -> { });
        observed.process(CONSUMER, "m1", (c, m) -> { });
        observed.process(CONSUMER, "p1", failing);
        observed.process(CONSUMER, "p1", failing);
        observed.process(CONSUMER, "p2", failing);
        observed.process(CONSUMER, "p2", failing);
        observed.quarantine().replay(CONSUMER, "p1", (c, m) -> { });
        observed.quarantine().drop(CONSUMER, "p2");
        Thread.sleep(20);
        observed.purge(100);

        assertThat(events).containsExactly("processed m1", "duplicate m1", "failed p1 1", "quarantined p1 2",
                "failed p2 1", "quarantined p2 2", "replayed p1", "dropped p2", "purged 3");

        Inbox throwing = newInbox(b -> b.listener(new InboxListener() {
            @Override
            public void processed(String consumer, String messageId) {
                throw new IllegalStateException("metrics down");
            }
        }));
        assertThat(throwing.process(CONSUMER, "m2", (c, m) -> insertLedger(c, m.id(), 1)).status()).isEqualTo(Status.PROCESSED);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    @DisplayName("a handler that turns auto-commit on is reported as misuse")
    void handlerMustNotCommit() {
        assertThatThrownBy(() -> inbox.process(CONSUMER, "rogue", (c, m) -> c.setAutoCommit(true)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
    }

    // ---- retention ---------------------------------------------------------------------------------

    @Test
    @DisplayName("purge deletes only expired rows, in batches, never a quarantined message; unexpired ones still deduplicate")
    void purgeRemovesOnlyExpiredRowsInBatches() throws Exception {
        Inbox shortLived = newInbox(b -> b.retention(Duration.ofMillis(1)).maxAttempts(1));
        Inbox longLived = newInbox(b -> b.retention(Duration.ofHours(1)).maxAttempts(5));
        for (int i = 0; i < 25; i++) {
            shortLived.process(CONSUMER, "old-" + i, (c, m) -> { });
        }
        for (int i = 0; i < 5; i++) {
            longLived.process(CONSUMER, "fresh-" + i, (c, m) -> { });
        }
        shortLived.process(CONSUMER, "quarantined", (c, m) -> {
            throw new Boom("poison");
        });
        longLived.process(CONSUMER, "failing-fresh", (c, m) -> {
            throw new Boom("transient");
        });
        newInbox(b -> b.retention(Duration.ofMillis(1))).process(CONSUMER, "failing-old", (c, m) -> {
            throw new Boom("transient");
        });
        Thread.sleep(20);

        List<Integer> batches = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batches.add(inbox.purge(10));
        }

        assertThat(batches).as("25 processed rows, then 1 expired attempt counter").containsExactly(10, 10, 6, 0, 0);
        assertThat(count("SELECT count(*) FROM idem_inbox")).as("5 fresh + 1 quarantined").isEqualTo(6);
        assertThat(count("SELECT count(*) FROM idem_quarantine")).as("the quarantined message and the fresh counter").isEqualTo(2);
        assertThat(longLived.process(CONSUMER, "fresh-3", (c, m) -> { }).status()).isEqualTo(Status.DUPLICATE);
        assertThat(longLived.process(CONSUMER, "quarantined", (c, m) -> { }).status()).isEqualTo(Status.QUARANTINED);
        assertThat(longLived.process(CONSUMER, "old-3", (c, m) -> insertLedger(c, m.id(), 1)).status())
                .as("a redelivery after retention runs again: retention must outlive the broker's redelivery horizon")
                .isEqualTo(Status.PROCESSED);
        assertThatThrownBy(() -> inbox.purge(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("5,000 messages with a 1 ms retention and a sweep every 250: the inbox never holds more than 250 rows")
    void tableStaysBoundedInALongRun() throws Exception {
        Inbox shortLived = newInbox(b -> b.retention(Duration.ofMillis(1)));
        Sweeper sweeper = Sweeper.builder(shortLived).batchSize(100).build();
        int maxRows = 0;
        int processed = 0;
        for (int batch = 0; batch < 100; batch++) {
            List<InboxMessage> messages = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                messages.add(InboxMessage.of("steady-" + batch + "-" + i));
            }
            processed += (int) shortLived.processBatch(CONSUMER, messages, (c, m) -> { }).stream()
                    .filter(o -> o.status() == Status.PROCESSED).count();
            if (batch % 5 == 4) {
                maxRows = Math.max(maxRows, (int) count("SELECT count(*) FROM idem_inbox"));
                Thread.sleep(3);  // every row written so far is past its 1 ms retention
                sweeper.sweepOnce();
                assertThat(count("SELECT count(*) FROM idem_inbox")).as("a sweep leaves no expired row").isZero();
            }
        }

        assertThat(processed).isEqualTo(5000);
        assertThat(maxRows).isEqualTo(250);
    }

    // ---- the long run -------------------------------------------------------------------------------

    @Test
    @DisplayName("10,000 messages (fewer on a second layout), each delivered 2-3 times in shuffled order by 4 threads, some failing at first: each effect exactly once, none lost")
    void tenThousandMessagesWithRedelivery() throws Exception {
        int messages = longRunMessages();
        Random random = new Random(42);
        List<String> deliveries = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            int copies = 2 + random.nextInt(2);
            for (int k = 0; k < copies; k++) {
                deliveries.add("order-" + i);
            }
        }
        Collections.shuffle(deliveries, random);
        // A few messages fail on their first two runs, as a flaky downstream would make them.
        Set<String> flaky = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < messages; i += 997) {
            flaky.add("order-" + i);
        }
        Map<String, AtomicInteger> flakyRuns = new ConcurrentHashMap<>();
        InboxHandler handler = (c, m) -> {
            if (flaky.contains(m.id()) && flakyRuns.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet() <= 2) {
                throw new Boom("flaky downstream");
            }
            insertLedger(c, m.id(), 1 + Integer.parseInt(m.id().substring(6)) % 100);
        };

        ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
        ConcurrentLinkedQueue<String> redeliver = new ConcurrentLinkedQueue<>();
        AtomicInteger processed = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        concurrently(4, () -> {
            int round = 0;
            while (true) {
                List<InboxMessage> batch = new ArrayList<>();
                for (String id; batch.size() < 100 && (id = queue.poll()) != null; ) {
                    batch.add(InboxMessage.of(id));
                }
                if (batch.isEmpty()) {
                    return null;
                }
                List<InboxOutcome> outcomes = new ArrayList<>();
                if (round++ % 10 == 0) {
                    for (InboxMessage m : batch) {
                        outcomes.add(inbox.process(CONSUMER, m, handler));
                    }
                } else {
                    outcomes.addAll(inbox.processBatch(CONSUMER, batch, handler));
                }
                for (InboxOutcome o : outcomes) {
                    switch (o.status()) {
                        case PROCESSED -> processed.incrementAndGet();
                        case DUPLICATE -> duplicates.incrementAndGet();
                        default -> {
                            assertThat(o.status()).isEqualTo(Status.FAILED);
                            failures.incrementAndGet();
                            redeliver.add(o.messageId());
                        }
                    }
                }
            }
        });
        assertThat(duplicates.get() + processed.get() + failures.get()).as("one outcome per delivery").isEqualTo(deliveries.size());
        // A failed batch run is not counted (its fallback runs the message again), so a flaky message fails 0-2 deliveries.
        assertThat(failures.get()).isLessThanOrEqualTo(2 * flaky.size());
        // The broker redelivers what was not settled.
        for (String id; (id = redeliver.poll()) != null; ) {
            InboxOutcome o = inbox.process(CONSUMER, id, handler);
            assertThat(o.status()).isIn(Status.PROCESSED, Status.DUPLICATE);
            if (o.status() == Status.PROCESSED) {
                processed.incrementAndGet();
            }
        }

        long expectedSum = 0;
        for (int i = 0; i < messages; i++) {
            expectedSum += 1 + i % 100;
        }
        assertThat(processed).as("every message processed exactly once").hasValue(messages);
        assertThat(flakyRuns.values()).as("every flaky message failed twice before it went through")
                .hasSize(flaky.size()).allSatisfy(runs -> assertThat(runs.get()).isGreaterThanOrEqualTo(3));
        assertThat(ledgerRows()).isEqualTo(messages);
        assertThat(count("SELECT count(DISTINCT message_id) FROM ledger")).isEqualTo(messages);
        assertThat(count("SELECT sum(amount) FROM ledger")).isEqualTo(expectedSum);
        assertThat(inbox.quarantine().list(CONSUMER, 10)).isEmpty();
    }
}
