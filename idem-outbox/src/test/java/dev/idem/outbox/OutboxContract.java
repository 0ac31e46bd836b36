package dev.idem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.Inbox;
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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@link Outbox} and {@link OutboxRelay} contract on a real database; one tiny subclass per
 * backend, and per backend with retention by partition ({@link #layout}). Backoff and lease expiry are moved forward by updating the table, never by waiting.
 */
abstract class OutboxContract {
    protected TestDatabase db;
    protected Outbox outbox;

    protected abstract Backends backend();

    @BeforeEach
    void openDatabase() throws SQLException {
        db = backend().open();
        outbox = newOutbox(b -> b);
        outbox.migrate();
        execute("CREATE TABLE payment (id TEXT PRIMARY KEY, amount INTEGER NOT NULL)");
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    // ---- helpers -------------------------------------------------------------------------------------

    protected Outbox newOutbox(UnaryOperator<Outbox.Builder> settings) {
        return settings.apply(layout(Outbox.builder(db.dataSource()))).build();
    }

    /** The table's layout: the default here, retention by partition in the Partitioned* subclasses. */
    protected Outbox.Builder layout(Outbox.Builder builder) {
        return builder;
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

    /** Appends one event in a transaction of its own. */
    protected OutboxMessage append(String aggregate, String eventType, String payload) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            OutboxMessage m = outbox.append(c, "payment", aggregate, eventType, payload.getBytes(StandardCharsets.UTF_8),
                    Map.of("content-type", "text/plain"));
            c.commit();
            c.setAutoCommit(true);
            return m;
        }
    }

    /** Moves every pending event's backoff and lease into the past, as time would. */
    protected void fastForward() throws SQLException {
        execute("UPDATE idem_outbox SET next_attempt_at = 0, lease_until = 0 WHERE state = 0");
    }

    /** Runs polls until nothing is pending (or fails after 30 s of no progress). */
    protected void drain(OutboxRelay relay) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (outbox.pendingCount() > 0) {
            assertThat(System.nanoTime()).as("the outbox did not drain").isLessThan(deadline);
            if (relay.runOnce() == 0) {
                Thread.sleep(2);
            }
        }
    }

    /** A publisher that records what it was given, in order. */
    protected static final class Recording implements OutboxPublisher {
        final List<OutboxMessage> published = new CopyOnWriteArrayList<>();

        @Override
        public void publish(OutboxMessage message) throws Exception {
            published.add(message);
        }

        List<Long> sequences(String aggregate) {
            return published.stream().filter(m -> m.aggregateId().equals(aggregate)).map(OutboxMessage::sequence).toList();
        }

        List<UUID> ids() {
            return published.stream().map(OutboxMessage::messageId).toList();
        }
    }

    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    // ---- backlog -----------------------------------------------------------------------------------------

    @Test
    @DisplayName("backlog counts pending events overall and per aggregate type, with the oldest's age, and lists the events the relay keeps failing on, without payloads")
    void backlogShowsPendingLagAndFailingEvents() throws Exception {
        OutboxBacklog empty = outbox.backlog(10);
        assertThat(empty.pending()).isZero();
        assertThat(empty.oldestAge()).isEmpty();
        assertThat(empty.destinations()).isEmpty();

        append("A", "Created", "secret-a");
        append("B", "Created", "secret-b");
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, "refund", "R", "Created", "secret-r".getBytes(StandardCharsets.UTF_8));
            c.commit();
            c.setAutoCommit(true);
        }
        OutboxRelay failing = OutboxRelay.builder(outbox, m -> {
            if (m.aggregateType().equals("refund")) {
                throw new IllegalStateException("no route to refunds");
            }
        }).build();
        failing.runOnce();

        OutboxBacklog backlog = outbox.backlog(10);
        assertThat(backlog.pending()).isEqualTo(1);
        assertThat(backlog.oldestAge()).hasValueSatisfying(age -> assertThat(age).isGreaterThanOrEqualTo(Duration.ZERO));
        assertThat(backlog.destinations()).extracting(OutboxBacklog.Destination::aggregateType).containsExactly("refund");
        assertThat(backlog.destinations().get(0).pending()).isEqualTo(1);
        assertThat(backlog.destinations().get(0).maxAttempts()).isEqualTo(1);
        assertThat(backlog.failing()).singleElement().satisfies(f -> {
            assertThat(f.aggregateType()).isEqualTo("refund");
            assertThat(f.aggregateId()).isEqualTo("R");
            assertThat(f.attempts()).isEqualTo(1);
            assertThat(f.lastError()).hasValueSatisfying(e -> assertThat(e).contains("no route to refunds"));
        });
        assertThat(backlog.toString()).doesNotContain("secret");
        assertThatThrownBy(() -> outbox.backlog(0)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- append ----------------------------------------------------------------------------------------

    @Test
    @DisplayName("append gives each event a new UUID and its aggregate's next sequence, 1, 2, 3, per aggregate")
    void appendAssignsIdsAndSequences() throws Exception {
        List<OutboxMessage> a = List.of(append("A", "Created", "secret-1"), append("A", "Captured", "secret-2"), append("A", "Refunded", "secret-3"));
        List<OutboxMessage> b = List.of(append("B", "Created", "b1"), append("B", "Captured", "b2"));

        assertThat(a).extracting(OutboxMessage::sequence).containsExactly(1L, 2L, 3L);
        assertThat(b).extracting(OutboxMessage::sequence).containsExactly(1L, 2L);
        Set<UUID> ids = new HashSet<>();
        a.forEach(m -> ids.add(m.messageId()));
        b.forEach(m -> ids.add(m.messageId()));
        assertThat(ids).hasSize(5);
        assertThat(a.get(1).eventType()).isEqualTo("Captured");
        assertThat(a.get(1).aggregateType()).isEqualTo("payment");
        assertThat(a.get(1).createdAt()).isNotNull();
        assertThat(a.get(1).toString()).doesNotContain("secret");
        assertThat(outbox.pendingCount()).isEqualTo(5);
    }

    @Test
    @DisplayName("the event commits and rolls back with the business write; a rolled-back event leaves no gap in the sequence")
    void appendFollowsTheBusinessTransaction() throws Exception {
        append("A", "Created", "1");
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO payment (id, amount) VALUES ('A', 100)")) {
                ps.executeUpdate();
            }
            assertThat(outbox.append(c, "payment", "A", "Captured", new byte[] {1}).sequence()).isEqualTo(2);
            c.rollback();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO payment (id, amount) VALUES ('A', 200)")) {
                ps.executeUpdate();
            }
            OutboxMessage kept = outbox.append(c, "payment", "A", "Captured", new byte[] {2});
            c.commit();
            c.setAutoCommit(true);
            assertThat(kept.sequence()).isEqualTo(2);
        }
        assertThat(count("SELECT count(*) FROM payment")).isEqualTo(1);
        assertThat(count("SELECT amount FROM payment")).isEqualTo(200);
        assertThat(outbox.pendingCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("append refuses an auto-commit connection and bad names, and never echoes the payload")
    void appendValidates() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            assertThatThrownBy(() -> outbox.append(c, "payment", "A", "Created", new byte[0]))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
            c.setAutoCommit(false);
            assertThatThrownBy(() -> outbox.append(c, "", "A", "Created", new byte[0])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("aggregateType");
            assertThatThrownBy(() -> outbox.append(c, "payment", "a\nb", "Created", new byte[0])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("aggregateId");
            assertThatThrownBy(() -> outbox.append(c, "payment", "A", "x".repeat(256), new byte[0])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("eventType");
            assertThatThrownBy(() -> outbox.append(c, "payment", "A", "Created", null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> outbox.append(c, "payment", "A", "Created", new byte[0], Map.of("", "v")))
                    .isInstanceOf(IllegalArgumentException.class);
            c.rollback();
            c.setAutoCommit(true);
        }
        assertThat(outbox.pendingCount()).isZero();
    }

    // ---- relaying ------------------------------------------------------------------------------------

    @Test
    @DisplayName("a relay publishes every event once, in sequence order per aggregate, with its id, type, payload and headers")
    void relayPublishesInOrderPerAggregate() throws Exception {
        Map<UUID, OutboxMessage> appended = new LinkedHashMap<>();
        for (int i = 0; i < 30; i++) {
            OutboxMessage m = append("agg-" + (i % 3), "Event" + i, "payload-" + i);
            appended.put(m.messageId(), m);
        }
        Recording publisher = new Recording();
        OutboxRelay relay = OutboxRelay.builder(outbox, publisher).maxAggregates(2).maxPerAggregate(4).build();

        drain(relay);

        assertThat(publisher.ids()).hasSize(30).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(appended.keySet());
        for (int agg = 0; agg < 3; agg++) {
            assertThat(publisher.sequences("agg-" + agg)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        }
        for (OutboxMessage published : publisher.published) {
            OutboxMessage original = appended.get(published.messageId());
            assertThat(published.aggregateId()).isEqualTo(original.aggregateId());
            assertThat(published.sequence()).isEqualTo(original.sequence());
            assertThat(published.eventType()).isEqualTo(original.eventType());
            assertThat(published.payload()).isEqualTo(original.payload());
            assertThat(published.headers()).containsExactlyEntriesOf(Map.of("content-type", "text/plain"));
            assertThat(published.attempts()).isZero();
        }
        assertThat(relay.runOnce()).as("nothing left to publish").isZero();
        assertThat(count("SELECT count(*) FROM idem_outbox WHERE state = 1")).isEqualTo(30);
    }

    @Test
    @DisplayName("two relays and two appenders at once: every row published exactly once, each aggregate in sequence order")
    void twoRelaysPublishEachRowOnce() throws Exception {
        Recording publisher = new Recording();
        AtomicBoolean appending = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> appenders = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int thread = t;
                appenders.add(pool.submit(() -> {
                    for (int i = 0; i < 150; i++) {
                        append("agg-" + (i % 10), "E", "t" + thread + "-" + i);
                    }
                    return null;
                }));
            }
            List<Future<?>> relays = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                OutboxRelay relay = OutboxRelay.builder(outbox, publisher).name("relay-" + r).maxAggregates(3).maxPerAggregate(5).build();
                relays.add(pool.submit(() -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (appending.get() || outbox.pendingCount() > 0) {
                        assertThat(System.nanoTime()).as("relays did not drain the outbox").isLessThan(deadline);
                        if (relay.runOnce() == 0) {
                            Thread.sleep(1);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : appenders) {
                f.get(60, TimeUnit.SECONDS);
            }
            appending.set(false);
            for (Future<?> f : relays) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(publisher.ids()).hasSize(300).doesNotHaveDuplicates();
        for (int agg = 0; agg < 10; agg++) {
            List<Long> expected = new ArrayList<>();
            for (long s = 1; s <= 30; s++) {
                expected.add(s);
            }
            assertThat(publisher.sequences("agg-" + agg)).as("agg-" + agg + " in order").containsExactlyElementsOf(expected);
        }
    }

    @Test
    @DisplayName("a failing event is retried after its backoff while its aggregate's later events wait and other aggregates flow")
    void failureIsRetriedAndItsAggregateWaits() throws Exception {
        for (int i = 1; i <= 4; i++) {
            append("A", "E", "a" + i);
        }
        for (int i = 1; i <= 3; i++) {
            append("B", "E", "b" + i);
        }
        List<String> log = new CopyOnWriteArrayList<>();
        AtomicInteger failuresLeft = new AtomicInteger(2);
        List<String> failedEvents = new CopyOnWriteArrayList<>();
        OutboxPublisher publisher = m -> {
            String name = m.aggregateId() + m.sequence();
            if (name.equals("A2") && failuresLeft.getAndDecrement() > 0) {
                log.add(name + "!");
                throw new IllegalStateException("broker unavailable");
            }
            log.add(name + (m.attempts() > 0 ? "@" + m.attempts() : ""));
        };
        OutboxRelay relay = OutboxRelay.builder(outbox, publisher).backoff(Duration.ofHours(1), Duration.ofHours(2))
                .listener(new OutboxListener() {
                    @Override
                    public void failed(OutboxMessage message, int attempts, Throwable cause) {
                        failedEvents.add(message.aggregateId() + message.sequence() + " " + attempts + " " + cause.getClass().getSimpleName());
                    }
                }).build();

        assertThat(relay.runOnce()).isEqualTo(4);
        assertThat(log).containsExactlyInAnyOrder("A1", "A2!", "B1", "B2", "B3");
        assertThat(relay.runOnce()).as("A2 backs off; A3 and A4 wait behind it").isZero();
        assertThat(count("SELECT count(*) FROM idem_outbox WHERE state = 0 AND last_error LIKE '%IllegalStateException: broker unavailable%'"))
                .isEqualTo(1);

        fastForward();
        assertThat(relay.runOnce()).isZero();
        fastForward();
        assertThat(relay.runOnce()).isEqualTo(3);

        List<String> aLog = log.stream().filter(s -> s.startsWith("A")).toList();
        assertThat(aLog).containsExactly("A1", "A2!", "A2!", "A2@2", "A3", "A4");
        assertThat(failedEvents).containsExactly("A2 1 IllegalStateException", "A2 2 IllegalStateException");
        assertThat(outbox.pendingCount()).isZero();
    }

    @Test
    @DisplayName("a relay that dies after publishing, before marking sent: the event is published again with the same id, and an inbox dedupes it")
    void crashAfterPublishRepublishesTheSameId() throws Exception {
        for (int i = 1; i <= 3; i++) {
            append("A", "E", "a" + i);
        }
        Recording wire = new Recording();
        OutboxRelay dying = OutboxRelay.builder(outbox, m -> {
            wire.publish(m);
            throw new Crash();  // the process dies after the broker took the message
        }).build();
        assertThatThrownBy(dying::runOnce).isInstanceOf(Crash.class);

        // A relay that leased and died without a trace keeps its lease until it runs out.
        OutboxMessage leasedByTheDead = outbox.lease("dead-relay#1", 10, 10, Duration.ofHours(1)).get(0).get(0);
        OutboxRelay survivor = OutboxRelay.builder(outbox, wire).build();
        assertThat(survivor.runOnce()).as("another relay's unexpired lease is respected").isZero();
        fastForward();
        drain(survivor);

        assertThat(leasedByTheDead.sequence()).isEqualTo(1);
        assertThat(wire.sequences("A")).containsExactly(1L, 1L, 2L, 3L);
        assertThat(wire.ids().get(0)).isEqualTo(wire.ids().get(1));

        Inbox inbox = Inbox.builder(db.dataSource()).build();
        inbox.migrate();
        execute("CREATE TABLE ledger (message_id TEXT NOT NULL)");
        List<Status> outcomes = new ArrayList<>();
        for (OutboxMessage delivered : wire.published) {
            outcomes.add(inbox.process("ledger", delivered.messageId().toString(), (c, m) -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (message_id) VALUES (?)")) {
                    ps.setString(1, m.id());
                    ps.executeUpdate();
                }
            }).status());
        }
        assertThat(outcomes).containsExactly(Status.PROCESSED, Status.DUPLICATE, Status.PROCESSED, Status.PROCESSED);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(3);
    }

    // ---- retention -------------------------------------------------------------------------------------

    @Test
    @DisplayName("purge deletes sent events past their retention in batches, never a pending one or one still within its retention")
    void purgeRemovesOnlySentEvents() throws Exception {
        Outbox shortLived = newOutbox(b -> b.retention(Duration.ofMillis(1)));
        for (int i = 0; i < 20; i++) {
            append("ok-" + i, "E", "x");
        }
        for (int i = 0; i < 5; i++) {
            append("stuck", "E", "x");
        }
        OutboxRelay relay = OutboxRelay.builder(shortLived, m -> {
            if (m.aggregateId().equals("stuck")) {
                throw new IllegalStateException("no route");
            }
        }).backoff(Duration.ofHours(1), Duration.ofHours(1)).build();
        relay.runOnce();
        for (int i = 0; i < 3; i++) {
            append("long-" + i, "E", "x");
        }
        assertThat(OutboxRelay.builder(outbox, m -> { }).build().runOnce()).as("sent with the default 1-day retention").isEqualTo(3);
        Thread.sleep(10);

        List<Integer> batches = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            batches.add(shortLived.purge(8));
        }

        assertThat(batches).containsExactly(8, 8, 4, 0);
        assertThat(shortLived.pendingCount()).isEqualTo(5);
        assertThat(count("SELECT count(*) FROM idem_outbox")).as("5 pending + 3 sent within their retention").isEqualTo(8);
        assertThatThrownBy(() -> outbox.purge(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("a started relay publishes appended events in the background, purges them after retention, and stops on close")
    void backgroundRelay() throws Exception {
        Outbox shortLived = newOutbox(b -> b.retention(Duration.ofMillis(1)));
        Recording publisher = new Recording();
        AtomicInteger purged = new AtomicInteger();
        OutboxRelay relay = OutboxRelay.builder(shortLived, publisher).pollInterval(Duration.ofMillis(5))
                .purgeInterval(Duration.ofMillis(5)).listener(new OutboxListener() {
                    @Override
                    public void purged(int count) {
                        purged.addAndGet(count);
                    }
                }).build();
        try (relay) {
            relay.start();
            assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
            for (int i = 0; i < 40; i++) {
                append("bg-" + (i % 4), "E", "x");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (publisher.published.size() < 40 || purged.get() < 40) {
                assertThat(System.nanoTime()).as("the background relay did not publish and purge everything").isLessThan(deadline);
                Thread.sleep(5);
            }
        }
        relay.close();
        assertThat(publisher.ids()).hasSize(40).doesNotHaveDuplicates();
        for (int agg = 0; agg < 4; agg++) {
            assertThat(publisher.sequences("bg-" + agg)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        }
        assertThat(count("SELECT count(*) FROM idem_outbox")).isZero();
        assertThat(count("SELECT count(*) FROM idem_outbox_sequence")).as("sequences are kept so they never restart").isEqualTo(4);
    }
}
