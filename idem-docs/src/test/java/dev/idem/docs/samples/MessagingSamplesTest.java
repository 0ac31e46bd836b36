package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxRelay;
import dev.idem.upserts.UpsertOutcome;
import dev.idem.upserts.WindowedTotals.WindowTotal;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The messaging samples of docs/messaging.md that need no broker adapter, run as printed on real databases (and RabbitMQ for the outbox's broker). */
class MessagingSamplesTest {

    @Test
    @DisplayName("messaging-inbox: the first delivery is processed, the redelivery is a duplicate; both are acknowledged, one entry written")
    void inbox() throws Exception {
        try (TestDatabase db = RealServices.sqlite()) {
            Entries.createTable(db.dataSource());
            MessagingSamples sample = new MessagingSamples();

            InboxOutcome first = sample.inbox(db.dataSource(), "msg-1");
            InboxOutcome again = sample.inbox(db.dataSource(), "msg-1");

            assertThat(first.status()).isEqualTo(InboxOutcome.Status.PROCESSED);
            assertThat(again.status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
            assertThat(sample.acks()).isEqualTo(2);
            assertThat(Entries.count(db.dataSource())).isEqualTo(1);
            Inbox defaults = Inbox.builder(db.dataSource()).build();
            assertThat(defaults.maxAttempts()).isEqualTo(5);
            assertThat(defaults.retention()).isEqualTo(Duration.ofDays(7));
        }
    }

    @Test
    @DisplayName("messaging-inbox-retention-by-partition: migrate() creates the inbox table partitioned, and a redelivery is a duplicate on it")
    void partitionedInbox() throws Exception {
        try (TestDatabase db = RealServices.postgres()) {
            Entries.createTable(db.dataSource());
            Inbox inbox = MessagingSamples.partitionedInbox(db.dataSource());
            assertThat(inbox.retentionPartitions().orElseThrow().partitioned()).isTrue();
            assertThat(inbox.retentionPartitions().orElseThrow().partitions()).as("the kept partition and 8 days or more").hasSizeGreaterThan(8);
            assertThat(inbox.process("ledger", "msg-1", Entries::insertEntry).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
            assertThat(inbox.process("ledger", "msg-1", Entries::insertEntry).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
            assertThat(Entries.count(db.dataSource())).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("messaging-outbox-retention-by-partition: migrate() creates the outbox table partitioned; an appended event is relayed from it")
    void partitionedOutbox() throws Exception {
        try (TestDatabase db = RealServices.postgres()) {
            Outbox outbox = MessagingSamples.partitionedOutbox(db.dataSource());
            assertThat(outbox.retentionPartitions().orElseThrow().partitioned()).isTrue();
            assertThat(outbox.retentionPartitions().orElseThrow().partitions()).as("1 day and 6 h ahead, in 6 h partitions").hasSizeGreaterThanOrEqualTo(5);
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                outbox.append(c, "payment", "p-1", "PaymentCaptured", new byte[0]);
                c.commit();
            }
            List<OutboxMessage> sent = new ArrayList<>();
            assertThat(OutboxRelay.builder(outbox, sent::add).build().runOnce()).isEqualTo(1);
            assertThat(sent).extracting(OutboxMessage::aggregateId).containsExactly("p-1");
            assertThat(outbox.keptPartitions()).isEmpty();
        }
    }

    @Test
    @DisplayName("messaging-broker-batch: a batch with a repeated id runs the handler once per id and acknowledges every delivery after the commit")
    void brokerBatch() throws Exception {
        try (TestDatabase db = RealServices.sqlite()) {
            Entries.createTable(db.dataSource());
            Inbox inbox = Inbox.builder(db.dataSource()).build();
            inbox.migrate();
            List<String> calls = new ArrayList<>();
            MessagingSamples.Delivery a = delivery("a", "first");
            MessagingSamples.Delivery b = delivery("b", "second");
            RecordingClient client = new RecordingClient(calls, List.of(a, a, b));
            MessagingSamples.QueueConsumer.Builder settings = new MessagingSamples.QueueConsumer.Builder(inbox)
                    .consumerName("ledger").handler((connection, delivery) -> Entries.insertLedgerEntry(connection, delivery.id()));
            MessagingSamples.QueueLoop loop = new MessagingSamples.QueueLoop(settings, client) {
                @Override
                protected void committed(List<MessagingSamples.Delivery> deliveries) {
                    calls.add("committed");
                }
            };
            MessagingSamples.QueueConsumer consumer = new MessagingSamples.QueueConsumer(loop);
            client.whenDrained = consumer::close;

            consumer.run();

            assertThat(calls).containsExactly("committed", "ack a", "ack a", "ack b", "settled");
            assertThat(Entries.count(db.dataSource())).isEqualTo(2);
        }
    }

    private static MessagingSamples.Delivery delivery(String id, String body) {
        return new MessagingSamples.Delivery(id, body.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    /**
     * The broker client side of the adapter sample: it hands out one batch, then closes the consumer, and
     * records what the loop tells it; "settled" is a flush that sends acknowledgements.
     */
    private static final class RecordingClient implements MessagingSamples.QueueClient {
        private final List<String> calls;
        private List<MessagingSamples.Delivery> batch;
        private boolean acked;
        Runnable whenDrained;

        RecordingClient(List<String> calls, List<MessagingSamples.Delivery> batch) {
            this.calls = calls;
            this.batch = batch;
        }

        @Override
        public String name() {
            return "payments";
        }

        @Override
        public List<MessagingSamples.Delivery> poll() {
            List<MessagingSamples.Delivery> next = batch;
            batch = List.of();
            if (next.isEmpty()) {
                whenDrained.run();
            }
            return next;
        }

        @Override
        public void ack(MessagingSamples.Delivery d) {
            calls.add("ack " + d.id());
            acked = true;
        }

        @Override
        public void requeue(MessagingSamples.Delivery d) {
            calls.add("redeliver " + d.id());
        }

        @Override
        public void reject(MessagingSamples.Delivery d) {
            calls.add("refuse " + d.id());
        }

        @Override
        public void flushAcks() {
            if (acked) {
                calls.add("settled");
            }
            acked = false;
        }

        @Override
        public void close() {
        }
    }

    @Test
    @DisplayName("messaging-upserts: on PostgreSQL a repeat is ignored and stale, a newer version updates")
    void upserts() throws Exception {
        try (TestDatabase db = RealServices.postgres(); Connection c = db.dataSource().getConnection()) {
            execute(db, "CREATE TABLE ledger_entry (message_id TEXT PRIMARY KEY, amount INTEGER NOT NULL)");
            execute(db, "CREATE TABLE balance (account TEXT PRIMARY KEY, cents BIGINT NOT NULL, version BIGINT NOT NULL)");

            MessagingSamples.Upserted first = MessagingSamples.upserts(c, "m-1", Map.of("account", "acc-1", "cents", 100L, "version", 1L));
            MessagingSamples.Upserted repeat = MessagingSamples.upserts(c, "m-1", Map.of("account", "acc-1", "cents", 100L, "version", 1L));
            MessagingSamples.Upserted newer = MessagingSamples.upserts(c, "m-2", Map.of("account", "acc-1", "cents", 150L, "version", 2L));

            assertThat(first).isEqualTo(new MessagingSamples.Upserted(true, UpsertOutcome.INSERTED));
            assertThat(repeat).isEqualTo(new MessagingSamples.Upserted(false, UpsertOutcome.STALE));
            assertThat(newer).isEqualTo(new MessagingSamples.Upserted(true, UpsertOutcome.UPDATED));
            assertThat(count(db, "ledger_entry")).isEqualTo(2);
        }
    }

    @Test
    @DisplayName("messaging-windowed-totals: a redelivery counts once, and running it again changes nothing")
    void windowedTotals() {
        try (TestDatabase db = RealServices.sqlite()) {
            Instant from = Instant.parse("2026-01-01T00:00:00Z");
            Instant to = from.plus(Duration.ofMinutes(2));
            MessagingSamples.Charge first = new MessagingSamples.Charge("c1", from.plusSeconds(10), "EUR", 100);
            List<MessagingSamples.Charge> charges = List.of(first, first,
                    new MessagingSamples.Charge("c2", from.plusSeconds(40), "EUR", 250),
                    new MessagingSamples.Charge("c3", from.plusSeconds(65), "USD", 70));

            MessagingSamples.Totals once = MessagingSamples.windowedTotals(db.dataSource(), charges, from, to);
            MessagingSamples.Totals again = MessagingSamples.windowedTotals(db.dataSource(), charges, from, to);

            assertThat(once.run().duplicates()).isEqualTo(1);
            assertThat(once.run().inserted()).isEqualTo(2);
            assertThat(once.totals()).containsExactly(new WindowTotal(from, "EUR", 2, 350), new WindowTotal(from.plusSeconds(60), "USD", 1, 70));
            assertThat(again.run().changed()).isFalse();
            assertThat(again.totals()).isEqualTo(once.totals());
        }
    }

    @Test
    @DisplayName("messaging-outbox: the committed event reaches a real RabbitMQ queue through the relay, with its stable id")
    void outbox() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(RealServices.rabbitmqUri());
        try (TestDatabase db = RealServices.postgres(); com.rabbitmq.client.Connection rabbit = factory.newConnection("idem-docs-outbox");
             Channel channel = rabbit.createChannel(); Connection business = db.dataSource().getConnection()) {
            String queue = channel.queueDeclare().getQueue();   // server-named, exclusive: no other run sees it
            channel.confirmSelect();
            MessagingSamples.Broker broker = message -> {
                synchronized (channel) {
                    AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(message.messageId().toString()).build();
                    channel.basicPublish("", queue, properties, message.payload());
                    channel.waitForConfirmsOrDie(10_000);
                }
            };
            business.setAutoCommit(false);
            byte[] json = "{\"paymentId\":\"p-1\"}".getBytes(StandardCharsets.UTF_8);

            OutboxRelay relay = MessagingSamples.outbox(db.dataSource(), business, "p-1", json, broker);
            GetResponse received;
            try {
                business.commit();
                received = receive(channel, queue, Duration.ofSeconds(20));
            } finally {
                relay.close();
            }

            assertThat(received.getBody()).isEqualTo(json);
            assertThat(received.getProps().getMessageId()).isEqualTo(outboxMessageId(db));
        }
    }

    private static GetResponse receive(Channel channel, String queue, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            GetResponse response;
            synchronized (channel) {
                response = channel.basicGet(queue, true);
            }
            if (response != null) {
                return response;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the relay published nothing to the queue within " + within);
    }

    private static String outboxMessageId(TestDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT message_id FROM idem_outbox")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execute(TestDatabase db, String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static long count(TestDatabase db, String table) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
