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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One batch of {@link ConsumerLoop}, with a broker that writes down every call it gets, on a real SQLite
 * inbox: which call each delivery gets, in which order, and that nothing is acknowledged before the
 * batch's transaction committed.
 */
class ConsumerLoopBatchTest {
    private static final String CONSUMER = "ledger";

    /** A broker delivery: a tag that names it in the call log, the message id (may be null) and the body. */
    private record Delivery(int tag, String id, String body) {
    }

    private TestDatabase db;
    private Inbox inbox;
    private final List<String> calls = new ArrayList<>();
    /** The tags of the deliveries the handler was given, in order, including runs that were rolled back. */
    private final List<Integer> handled = new ArrayList<>();
    /** Ledger rows another connection saw when {@link Recorder#committed} was called. */
    private long rowsAtCommitted = -1;

    @BeforeEach
    void openDatabase() throws SQLException {
        db = RealServices.sqlite();
        inbox = Inbox.builder(db.dataSource()).maxAttempts(2).build();
        inbox.migrate();
        execute("CREATE TABLE ledger (message_id TEXT NOT NULL)");
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    @Test
    @DisplayName("refusals come before the transaction; after the commit each claimed delivery gets one answer, in order, then settled")
    void answersEachDeliveryAfterTheCommit() throws Exception {
        process(List.of(
                new Delivery(1, "a", "ok"),
                new Delivery(2, null, "ok"),
                new Delivery(3, "bad\u0001id", "ok"),
                new Delivery(4, "a", "ok"),
                new Delivery(5, "b", "boom"),
                new Delivery(6, "c", "ok")), new Recorder());

        assertThat(calls).containsExactly(
                "refuse 2: it has no message id: the test sets none",
                "refuse 3: its message id is unusable (message id has a control character at position 3)",
                "committed [1, 4, 5, 6]",
                "ack 1", "ack 4", "redeliver 5", "ack 6",
                "settled");
        assertThat(rowsAtCommitted).as("ledger rows another connection saw before the first answer").isEqualTo(2);
        assertThat(handled).as("the id repeated in the batch reaches the handler with its first delivery only")
                .doesNotContain(2, 3, 4).contains(1, 5, 6);

        calls.clear();
        process(List.of(new Delivery(7, "b", "boom"), new Delivery(8, "a", "ok")), new Recorder());
        assertThat(calls).as("the second failure reaches maxAttempts 2").containsExactly(
                "committed [7, 8]", "quarantined 7", "ack 8", "settled");
        assertThat(rows()).isEqualTo(2);
    }

    @Test
    @DisplayName("a database failure: storeFailed, then every claimed delivery goes back; nothing is acknowledged")
    void databaseFailureRedeliversTheWholeBatch() throws Exception {
        execute("DROP TABLE " + inbox.tableName());

        process(List.of(new Delivery(1, "a", "ok"), new Delivery(2, "", "ok"), new Delivery(3, "b", "ok")), new Recorder());

        assertThat(calls).containsExactly(
                "refuse 2: it has no message id: the test sets none",
                "storeFailed [1, 3]: StoreException",
                "redeliver 1", "redeliver 3");
        assertThat(rows()).isZero();
    }

    @Test
    @DisplayName("a batch with nothing to claim never reaches the inbox")
    void nothingClaimedNothingProcessed() throws Exception {
        execute("DROP TABLE " + inbox.tableName());  // a call to the inbox would fail

        process(List.of(new Delivery(1, null, "ok")), new Recorder());
        process(List.of(), new Recorder());

        assertThat(calls).containsExactly("refuse 1: it has no message id: the test sets none");
    }

    @Test
    @DisplayName("a broker call that throws ends the batch; the same deliveries again are duplicates, applied once")
    void aFailingAckLeavesTheRestUnansweredAndTheRedeliveryIsADuplicate() throws Exception {
        List<Delivery> deliveries = List.of(new Delivery(1, "a", "ok"), new Delivery(2, "b", "ok"), new Delivery(3, "c", "ok"));
        Recorder dying = new Recorder() {
            @Override
            protected void ack(Delivery d) {
                super.ack(d);
                if (d.tag() == 2) {
                    throw new IllegalStateException("channel closed");
                }
            }
        };
        assertThatThrownBy(() -> process(deliveries, dying)).hasMessage("channel closed");
        assertThat(calls).containsExactly("committed [1, 2, 3]", "ack 1", "ack 2");

        calls.clear();
        handled.clear();
        process(deliveries, new Recorder());
        assertThat(calls).containsExactly("committed [1, 2, 3]", "ack 1", "ack 2", "ack 3", "settled");
        assertThat(handled).as("the redelivered batch is answered DUPLICATE without running the handler").isEmpty();
        assertThat(rows()).isEqualTo(3);
    }

    // ---- helpers ----------------------------------------------------------------------------------------

    /** One fetch as the loop handles it: the batch, then the broker's after-fetch step. */
    private void process(List<Delivery> deliveries, Recorder broker) throws Exception {
        broker.process(deliveries);
        broker.afterFetch();
    }

    private MessageHandler<Delivery> handler() {
        return (c, d) -> {
            handled.add(d.tag());
            if (d.body().equals("boom")) {
                throw new IllegalStateException("boom");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (message_id) VALUES (?)")) {
                ps.setString(1, d.id());
                ps.executeUpdate();
            }
        };
    }

    /**
     * Writes every call down; at {@code committed}, counts the ledger rows on a connection of its own. A
     * fetch whose batch committed ends with "settled" (the after-fetch step); a store failure the listener
     * heard of is written down before the batch goes back.
     */
    private class Recorder extends ConsumerLoop<Delivery> {
        /** What the listener heard of a store failure. */
        private final RuntimeException[] heard;
        private boolean committedSinceFetch;

        Recorder() {
            this(new RuntimeException[1]);
        }

        private Recorder(RuntimeException[] heard) {
            super(inbox, CONSUMER, Delivery::id, handler(), new ConsumerListener<>() {
                @Override
                public void storeFailed(String consumer, int messages, RuntimeException failure) {
                    heard[0] = failure;
                }
            }, Duration.ofMillis(1), "the test queue", ConsumerTracing.NONE);
            this.heard = heard;
        }

        @Override
        protected List<Delivery> fetch() {
            return List.of();
        }

        @Override
        protected byte[] body(Delivery d) {
            return d.body().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        protected Map<String, String> headers(Delivery d) {
            return Map.of("tag", Integer.toString(d.tag()));
        }

        @Override
        protected String describe(Delivery d) {
            return "delivery " + d.tag();
        }

        @Override
        protected String missingIdHint() {
            return "the test sets none";
        }

        @Override
        protected String refusal() {
            return "It was dropped.";
        }

        /** Writes down the reason only, without the report's frame ("consumer … refused …: " and the refusal). */
        @Override
        protected void refuse(Delivery d, String report) {
            String frame = "consumer " + CONSUMER + " refused " + describe(d) + ": ";
            assertThat(report).startsWith(frame).endsWith(". " + refusal());
            calls.add("refuse " + d.tag() + ": " + report.substring(frame.length(), report.length() - refusal().length() - 2));
        }

        @Override
        protected void redeliverAll(List<Delivery> deliveries) throws Exception {
            calls.add("storeFailed " + tags(deliveries) + ": " + heard[0].getClass().getSimpleName());
            super.redeliverAll(deliveries);
        }

        @Override
        protected void committed(List<Delivery> deliveries) throws SQLException {
            calls.add("committed " + tags(deliveries));
            rowsAtCommitted = rows();
            committedSinceFetch = true;
        }

        @Override
        protected void ack(Delivery d) {
            calls.add("ack " + d.tag());
        }

        @Override
        protected void quarantined(Delivery d) {
            calls.add("quarantined " + d.tag());
        }

        @Override
        protected void redeliver(Delivery d) {
            calls.add("redeliver " + d.tag());
        }

        @Override
        protected void afterFetch() {
            if (committedSinceFetch) {
                calls.add("settled");
            }
            committedSinceFetch = false;
        }

        @Override
        protected void release(Throwable failure) {
        }

        @Override
        protected Delivery rebuild(InboxMessage quarantined) {
            return new Delivery(0, quarantined.id(), new String(quarantined.payload(), StandardCharsets.UTF_8));
        }

        private List<Integer> tags(List<Delivery> deliveries) {
            return deliveries.stream().map(Delivery::tag).toList();
        }
    }

    private long rows() throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM ledger")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
