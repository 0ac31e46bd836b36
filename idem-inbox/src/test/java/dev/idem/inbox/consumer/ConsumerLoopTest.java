package dev.idem.inbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The shared consumer loop against a real inbox (SQLite) and a scripted broker: the adapter hands out
 * prepared batches and writes down what it is told, in order, so each test reads the broker's side of
 * the protocol. The broker is the fake here, not the database: the loop's logic is what is tested.
 */
class ConsumerLoopTest {
    private TestDatabase db;
    private Inbox inbox;
    private final List<String> handled = new ArrayList<>();
    private final List<String> events = new ArrayList<>();

    /** A broker message: its id (null for none), its ordering group and its position there. */
    record Msg(String id, String group, long position) {
        static Msg of(String id) {
            return new Msg(id, "g", 0);
        }
    }

    @BeforeEach
    void open() throws SQLException {
        db = RealServices.sqlite();
        inbox = Inbox.builder(db.dataSource()).maxAttempts(2).build();
        inbox.migrate();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE position (grp TEXT PRIMARY KEY, next BIGINT NOT NULL)");
        }
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    @DisplayName("a batch commits before any answer; a repeated id is acknowledged without running the handler again")
    void duplicatesAreAcknowledgedWithoutTheHandler() {
        Script broker = script(false, batch("a", "b", "a"), batch("b"));
        run(broker);

        assertThat(handled).containsExactly("a", "b");
        assertThat(broker.calls).containsExactly("positions a,b,a", "committed a,b,a", "ack a", "ack b", "ack a",
                "positions b", "committed b", "ack b", "release null");
        assertThat(events).containsExactly("processed a", "processed b", "duplicate a", "duplicate b", "stopped null");
    }

    @Test
    @DisplayName("a message whose handler throws is redelivered with its attempt counted, and quarantined at the inbox's maximum")
    void poisonIsQuarantinedAfterMaxAttempts() {
        Script broker = script(false, batch("poison-1", "a"), batch("poison-1"), batch("poison-1"));
        run(broker);

        assertThat(handled).containsExactly("a");
        // The batch fails, so each message gets a transaction of its own: a's commits with its position;
        // the attempt that quarantines commits none; a later delivery of the quarantined id settles with one.
        assertThat(broker.calls).containsExactly("positions a", "committed poison-1,a", "redeliver poison-1", "ack a",
                "committed poison-1", "quarantined poison-1", "positions poison-1", "committed poison-1", "quarantined poison-1",
                "release null");
        assertThat(events).containsExactly("failed poison-1 1", "processed a", "quarantined poison-1", "quarantined poison-1", "stopped null");
        assertThat(inbox.listQuarantined("ledger", 10)).hasSize(1);
    }

    @Test
    @DisplayName("a database failure: nothing is acknowledged or counted, the listener hears of it, the batch goes back after the backoff")
    void storeFailureRedeliversTheBatch() {
        Inbox away = Inbox.builder(db.dataSource()).tableName("not_migrated").build();
        Script broker = script(away, false, batch("a", "b"));
        run(broker);

        assertThat(handled).isEmpty();
        assertThat(broker.calls).containsExactly("redeliver a", "redeliver b", "release null");
        assertThat(events).containsExactly("storeFailed 2", "stopped null");
    }

    @Test
    @DisplayName("messages without a usable id are refused with a reason that names the broker's hint and never quotes the id")
    void unusableIdsAreRefused() {
        Script broker = script(false, List.of(Msg.of(null), Msg.of("bad\u0001id"), Msg.of("a")));
        ConsumerLoop<Msg> loop = run(broker);

        assertThat(handled).containsExactly("a");
        assertThat(loop.refused()).isEqualTo(2);
        assertThat(broker.refusals).hasSize(2);
        assertThat(broker.refusals.get(0)).contains("it has no message id: set one").contains("the test queue").contains("dropped");
        assertThat(broker.refusals.get(1)).contains("message id is unusable").contains("control character").doesNotContain("bad");
        assertThat(broker.calls).containsExactly("refuse", "refuse", "positions a", "committed a", "ack a", "release null");
    }

    @Test
    @DisplayName("an ordered batch stops at a failure: what was before it commits with its positions, what is behind it comes again uncounted")
    void orderedBatchStopsAtTheFirstFailure() throws SQLException {
        List<Msg> first = List.of(new Msg("a", "p0", 1), new Msg("poison-1", "p0", 2), new Msg("c", "p0", 3), new Msg("d", "p1", 1));
        Script broker = script(true, first, List.of(new Msg("e", "p1", 2)));
        run(broker);

        assertThat(handled).as("handler runs: a's first, in the batch, was rolled back with it").containsExactly("a", "a", "e");
        assertThat(broker.calls).containsExactly("positions a", "committed a,poison-1,c,d", "ack a", "redeliver poison-1",
                "unattempted c", "unattempted d", "positions e", "committed e", "ack e", "release null");
        assertThat(positions()).containsExactly("p0=2", "p1=3");
    }

    @Test
    @DisplayName("an ordered batch stops at a message without a usable id: the ones behind it are not processed")
    void orderedBatchStopsAtARefusal() {
        Script broker = script(true, List.of(new Msg("a", "p0", 1), new Msg(null, "p0", 2), new Msg("c", "p0", 3)));
        run(broker);

        assertThat(handled).containsExactly("a");
        assertThat(broker.calls).containsExactly("refuse", "positions a", "committed a", "ack a", "unattempted c", "release null");
    }

    @Test
    @DisplayName("a fetch that throws ends the loop: the adapter is released with the failure, the listener hears it, run() rethrows it")
    void failingFetchEndsTheLoop() {
        Script broker = script(false, batch("a"));
        broker.failAtEnd = new IllegalStateException("the channel closed");
        ConsumerLoop<Msg> loop = broker;
        assertThatThrownBy(loop::run).isSameAs(broker.failAtEnd);

        assertThat(broker.calls).containsExactly("positions a", "committed a", "ack a", "release java.lang.IllegalStateException: the channel closed");
        assertThat(events).containsExactly("processed a", "stopped java.lang.IllegalStateException: the channel closed");
        assertThat(loop.failure()).containsSame(broker.failAtEnd);
        assertThatThrownBy(loop::run).isInstanceOf(IllegalStateException.class).hasMessageContaining("ran already");
    }

    @Test
    @DisplayName("close() on a started loop waits for it to finish and release; a loop closed before it ran does nothing")
    void closeStopsTheLoop() throws Exception {
        Script idle = script(false);
        idle.idle = true;
        ConsumerLoop<Msg> loop = idle;
        loop.start("test-loop");
        assertThat(loop.isRunning()).isTrue();
        loop.close(Duration.ofSeconds(30));
        assertThat(loop.isRunning()).isFalse();
        assertThat(idle.calls).containsExactly("wakeup", "release null");
        assertThat(events).containsExactly("stopped null");

        Script never = script(false, batch("a"));
        ConsumerLoop<Msg> closed = never;
        closed.close(Duration.ofSeconds(1));
        closed.run();
        assertThat(never.calls).containsExactly("wakeup", "release null");
        assertThat(handled).isEmpty();
    }

    // ---- helpers ------------------------------------------------------------------------------------------

    private static List<Msg> batch(String... ids) {
        return Arrays.stream(ids).map(Msg::of).toList();
    }

    private ConsumerLoop<Msg> run(Script broker) {
        broker.run();
        return broker;
    }

    @SafeVarargs
    private Script script(boolean ordered, List<Msg>... batches) {
        return script(inbox, ordered, batches);
    }

    @SafeVarargs
    private Script script(Inbox on, boolean ordered, List<Msg>... batches) {
        MessageHandler<Msg> handler = (c, m) -> {
            if (m.id().startsWith("poison")) {
                throw new IllegalStateException("cannot handle it");
            }
            handled.add(m.id());
        };
        ConsumerListener<Msg> listener = new ConsumerListener<>() {
            @Override
            public void processed(String consumer, Msg message, String messageId) {
                events.add("processed " + messageId);
            }

            @Override
            public void duplicate(String consumer, Msg message, String messageId) {
                events.add("duplicate " + messageId);
            }

            @Override
            public void failed(String consumer, Msg message, String messageId, int attempts, Throwable cause) {
                events.add("failed " + messageId + " " + attempts);
            }

            @Override
            public void quarantined(String consumer, Msg message, String messageId) {
                events.add("quarantined " + messageId);
            }

            @Override
            public void storeFailed(String consumer, int messages, RuntimeException failure) {
                events.add("storeFailed " + messages);
            }

            @Override
            public void stopped(String consumer, Throwable cause) {
                events.add("stopped " + cause);
            }
        };
        return new Script(on, handler, listener, ordered, batches);
    }

    private List<String> positions() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT grp, next FROM position ORDER BY grp")) {
            while (rs.next()) {
                out.add(rs.getString(1) + "=" + rs.getLong(2));
            }
        }
        return out;
    }

    /** A broker that hands out the given batches, then closes the loop (or fails), and writes down every call. */
    private static final class Script extends ConsumerLoop<Msg> {
        final Deque<List<Msg>> batches;
        final boolean ordered;
        final List<String> calls = new ArrayList<>();
        final List<String> refusals = new ArrayList<>();
        RuntimeException failAtEnd;
        volatile boolean idle;
        private boolean closingItself;

        Script(Inbox inbox, MessageHandler<Msg> handler, ConsumerListener<Msg> listener, boolean ordered, List<Msg>[] batches) {
            super(inbox, "ledger", Msg::id, handler, listener, Duration.ofMillis(1), "the test queue", ConsumerTracing.NONE);
            this.ordered = ordered;
            this.batches = new ArrayDeque<>(List.of(batches));
        }

        @Override
        protected List<Msg> fetch() throws InterruptedException {
            if (!batches.isEmpty()) {
                return batches.poll();
            }
            if (idle) {
                Thread.sleep(5);
                return List.of();
            }
            if (failAtEnd != null) {
                throw failAtEnd;
            }
            closingItself = true;
            close(Duration.ZERO);
            return List.of();
        }

        @Override
        protected byte[] body(Msg m) {
            return String.valueOf(m.position()).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        protected Map<String, String> headers(Msg m) {
            return Map.of("group", m.group());
        }

        @Override
        protected String missingIdHint() {
            return "set one";
        }

        @Override
        protected String describe(Msg m) {
            return "a message on the test queue";
        }

        @Override
        protected String refusal() {
            return "It was dropped.";
        }

        @Override
        protected void refuse(Msg m, String reason) {
            calls.add("refuse");
            refusals.add(reason);
        }

        @Override
        protected void ack(Msg m) {
            calls.add("ack " + m.id());
        }

        @Override
        protected void quarantined(Msg m) {
            calls.add("quarantined " + m.id());
        }

        @Override
        protected void redeliver(Msg m) {
            calls.add("redeliver " + m.id());
        }

        @Override
        protected void unattempted(Msg m) {
            calls.add("unattempted " + m.id());
        }

        @Override
        protected void committed(List<Msg> messages) {
            calls.add("committed " + messages.stream().map(Msg::id).collect(Collectors.joining(",")));
        }

        @Override
        protected boolean ordered() {
            return ordered;
        }

        @Override
        protected void positions(Connection c, List<Msg> settled) throws SQLException {
            calls.add("positions " + settled.stream().map(Msg::id).collect(Collectors.joining(",")));
            for (Msg m : settled) {
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO position (grp, next) VALUES (?, ?) ON CONFLICT (grp) DO UPDATE SET next = excluded.next")) {
                    ps.setString(1, m.group());
                    ps.setLong(2, m.position() + 1);
                    ps.executeUpdate();
                }
            }
        }

        @Override
        protected void wakeup() {
            if (!closingItself && !calls.contains("wakeup")) {
                calls.add("wakeup");
            }
        }

        @Override
        protected void release(Throwable failure) {
            calls.add("release " + failure);
        }

        @Override
        protected Msg rebuild(InboxMessage quarantined) {
            return new Msg(quarantined.id(), quarantined.headers().get("group"), Long.parseLong(new String(quarantined.payload(), StandardCharsets.UTF_8)));
        }
    }
}
