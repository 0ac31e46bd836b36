package dev.idem.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxListener;
import dev.idem.testing.Ledger;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.PublishOptions;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh PostgreSQL schema with a {@code ledger} table (no unique constraint: a second effect of a
 * message would show as a second row) and a connection to the real NATS JetStream; streams a test
 * creates get unique names and are deleted after it (with their consumers).
 */
abstract class NatsTestSupport {
    protected TestDatabase db;
    protected Ledger ledger;
    protected Connection nats;
    protected JetStreamManagement jsm;
    protected JetStream js;
    protected final Counts counts = new Counts();
    private final List<String> streams = new ArrayList<>();
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @BeforeEach
    void openServices() throws Exception {
        nats = NatsBroker.connect("idem-test-admin");
        jsm = nats.jetStreamManagement();
        js = nats.jetStream();
        db = RealServices.postgres();
        ledger = Ledger.create(db.dataSource());
    }

    @AfterEach
    void closeServices() throws Exception {
        while (!toClose.isEmpty()) {
            toClose.pop().close();
        }
        if (nats != null) {
            for (String s : streams) {
                jsm.deleteStream(s);
            }
            nats.close();
        }
        if (db != null) {
            db.close();
        }
    }

    // ---- database ---------------------------------------------------------------------------------------

    protected Inbox inbox(UnaryOperator<Inbox.Builder> settings) {
        Inbox inbox = settings.apply(Inbox.builder(db.dataSource()).listener(counts)).build();
        inbox.migrate();
        return inbox;
    }

    protected void sql(String statement) throws SQLException {
        try (java.sql.Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }

    protected long query(String query) throws SQLException {
        try (java.sql.Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The handler every test books with: one ledger row, keyed by the message id the consumer used, with the amount in the data. */
    protected static void book(java.sql.Connection c, Message m) throws SQLException {
        Ledger.book(c, NatsMessageIds.standard().messageId(m), Long.parseLong(new String(m.getData(), StandardCharsets.UTF_8)));
    }

    // ---- JetStream --------------------------------------------------------------------------------------

    /** A file-backed stream on one subject of its own, with the given duplicate window; returns {stream, subject}. */
    protected String[] stream(Duration duplicateWindow) throws Exception {
        String name = NatsBroker.unique("s");
        String subject = "idem.test." + name.toLowerCase(java.util.Locale.ROOT);
        jsm.addStream(StreamConfiguration.builder().name(name).subjects(subject).storageType(StorageType.File)
                .duplicateWindow(duplicateWindow).build());
        streams.add(name);
        return new String[] {name, subject};
    }

    protected ConsumerInfo consumerInfo(String stream, String durable) throws Exception {
        return jsm.getConsumerInfo(stream, durable);
    }

    /** Whether the durable has delivered and had acknowledged (or terminated) everything in its stream. */
    protected boolean settled(String stream, String durable) throws Exception {
        ConsumerInfo info = consumerInfo(stream, durable);
        return info.getNumPending() == 0 && info.getNumAckPending() == 0;
    }

    protected long streamMessages(String stream) throws Exception {
        return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
    }

    /** A message whose data is the amount; the id goes in as PublishOptions' message id (the Nats-Msg-Id header). */
    protected static NatsMessage message(String subject, long amount) {
        return NatsMessage.builder().subject(subject).data(Long.toString(amount).getBytes(StandardCharsets.UTF_8)).build();
    }

    /** Publishes asynchronously with Nats-Msg-Id = id, waiting for the PubAcks every 500; returns how many the stream called duplicates. */
    protected long publish(String subject, List<String> ids, java.util.function.ToLongFunction<String> amount) throws Exception {
        long duplicates = 0;
        List<CompletableFuture<PublishAck>> pending = new ArrayList<>();
        for (String id : ids) {
            pending.add(js.publishAsync(message(subject, amount.applyAsLong(id)), PublishOptions.builder().messageId(id).build()));
            if (pending.size() == 500) {
                duplicates += await(pending);
            }
        }
        return duplicates + await(pending);
    }

    private static long await(List<CompletableFuture<PublishAck>> pending) throws Exception {
        long duplicates = 0;
        for (CompletableFuture<PublishAck> f : pending) {
            if (f.get(30, TimeUnit.SECONDS).isDuplicate()) {
                duplicates++;
            }
        }
        pending.clear();
        return duplicates;
    }

    /** Publishes one message with Nats-Msg-Id = id until the stream stores it (past its duplicate window). */
    protected void publishUntilStored(String subject, String id, long amount) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (js.publish(message(subject, amount), PublishOptions.builder().messageId(id).build()).isDuplicate()) {
            assertThat(System.nanoTime() - deadline).as("the stream's duplicate window passed").isNegative();
            Thread.sleep(25);
        }
    }

    protected static String id(int i) {
        return "m-" + i;
    }

    protected static long amountOf(String id) {
        return Long.parseLong(id.substring(2)) + 1;
    }

    protected static List<String> ids(int n) {
        List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(id(i));
        }
        return ids;
    }

    /** Closed (in reverse order) after the test, before its streams are deleted. */
    protected <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.push(closeable);
        return closeable;
    }

    /** Waits for {@code condition}, failing with {@code what} after {@code timeout}. */
    protected static void await(String what, Duration timeout, Check condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            assertThat(System.nanoTime() - deadline).as("timed out waiting until " + what).isNegative();
            Thread.sleep(20);
        }
    }

    @FunctionalInterface
    protected interface Check {
        boolean holds() throws Exception;
    }

    /** The inbox's listener events, counted. */
    protected static final class Counts implements InboxListener {
        final AtomicLong processed = new AtomicLong();
        final AtomicLong duplicates = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong quarantined = new AtomicLong();

        @Override
        public void processed(String consumer, String messageId) {
            processed.incrementAndGet();
        }

        @Override
        public void duplicate(String consumer, String messageId) {
            duplicates.incrementAndGet();
        }

        @Override
        public void failed(String consumer, String messageId, int attempts, Throwable cause) {
            failed.incrementAndGet();
        }

        @Override
        public void quarantined(String consumer, String messageId, int attempts) {
            quarantined.incrementAndGet();
        }
    }
}
