package dev.idem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxListener;
import dev.idem.testing.Ledger;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh PostgreSQL schema with a {@code ledger} table (no unique constraint: a second effect of a
 * message would show as a second row) and a connection to the real RabbitMQ; queues and exchanges
 * a test declares get unique names and are deleted after it.
 */
abstract class RabbitTestSupport {
    protected TestDatabase db;
    protected Ledger ledger;
    protected Connection broker;
    protected Channel admin;
    protected final Counts counts = new Counts();
    private final List<String> queues = new ArrayList<>();
    private final List<String> exchanges = new ArrayList<>();
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @BeforeEach
    void openServices() throws Exception {
        broker = RabbitBroker.connect("idem-test-admin");
        admin = broker.createChannel();
        db = RealServices.postgres();
        ledger = Ledger.create(db.dataSource());
    }

    @AfterEach
    void closeServices() throws Exception {
        while (!toClose.isEmpty()) {
            toClose.pop().close();
        }
        if (broker != null) {
            try (Channel ch = broker.createChannel()) {
                for (String q : queues) {
                    ch.queueDelete(q);
                }
                for (String x : exchanges) {
                    ch.exchangeDelete(x);
                }
            }
            broker.close();
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

    /** The handler every test books with: one ledger row with the amount in the body. */
    protected static void book(java.sql.Connection c, Delivery d) throws SQLException {
        String id = d.getProperties().getMessageId() != null ? d.getProperties().getMessageId()
                : String.valueOf(d.getProperties().getHeaders().get("message-id"));
        Ledger.book(c, id, Long.parseLong(new String(d.getBody(), StandardCharsets.UTF_8)));
    }

    // ---- broker -----------------------------------------------------------------------------------------

    /** A quorum queue with {@code x-delivery-limit} dead-lettering to a queue of its own; returns {queue, dead-letter queue}. */
    protected String[] quorumQueueWithDeadLetters(int deliveryLimit) throws Exception {
        String queue = RabbitBroker.unique("q");
        String dlx = queue + ".dlx";
        String dlq = queue + ".dlq";
        admin.exchangeDeclare(dlx, BuiltinExchangeType.FANOUT, true);
        exchanges.add(dlx);
        admin.queueDeclare(dlq, true, false, false, null);
        queues.add(dlq);
        admin.queueBind(dlq, dlx, "");
        Map<String, Object> args = RabbitInboxConsumer.quorumQueueArguments(deliveryLimit);
        args.put("x-dead-letter-exchange", dlx);
        admin.queueDeclare(queue, true, false, false, args);
        queues.add(queue);
        return new String[] {queue, dlq};
    }

    protected String classicQueue() throws Exception {
        String queue = RabbitBroker.unique("q");
        admin.queueDeclare(queue, true, false, false, null);
        queues.add(queue);
        return queue;
    }

    protected String fanout() throws Exception {
        return fanout(RabbitBroker.unique("x"));
    }

    protected String fanout(String name) throws Exception {
        admin.exchangeDeclare(name, BuiltinExchangeType.FANOUT, false, false, null);
        exchanges.add(name);
        return name;
    }

    protected void bind(String queue, String exchange) throws Exception {
        admin.queueBind(queue, exchange, "");
    }

    /** Messages ready in the queue (not counting those delivered and unacknowledged). */
    protected long ready(String queue) throws Exception {
        try (Channel ch = broker.createChannel()) {
            return ch.queueDeclarePassive(queue).getMessageCount();
        }
    }

    protected static AMQP.BasicProperties withId(String id) {
        return new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2).build();
    }

    /** Publishes (exchange, routing key, id, amount) messages on a confirm channel, waiting for confirms every 500. */
    protected void publish(String exchange, String routingKey, List<String> ids, java.util.function.ToLongFunction<String> amount)
            throws Exception {
        try (Channel ch = broker.createChannel()) {
            ch.confirmSelect();
            int n = 0;
            for (String id : ids) {
                ch.basicPublish(exchange, routingKey, true, withId(id), Long.toString(amount.applyAsLong(id)).getBytes(StandardCharsets.UTF_8));
                if (++n % 500 == 0) {
                    ch.waitForConfirmsOrDie(30_000);
                }
            }
            ch.waitForConfirmsOrDie(30_000);
        }
    }

    protected static String id(int i) {
        return "m-" + i;
    }

    protected static long amountOf(String id) {
        return Long.parseLong(id.substring(2)) + 1;
    }

    /** Closed (in reverse order) after the test, before its queues are deleted. */
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
        final AtomicLong replayed = new AtomicLong();

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

        @Override
        public void replayed(String consumer, String messageId) {
            replayed.incrementAndGet();
        }
    }
}
