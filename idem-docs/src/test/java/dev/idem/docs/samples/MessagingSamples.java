package dev.idem.docs.samples;

import static dev.idem.docs.samples.Entries.insertEntry;

import dev.idem.jdbc.Dialect;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.consumer.ConsumerBuilder;
import dev.idem.inbox.consumer.ConsumerLoop;
import dev.idem.inbox.consumer.InboxConsumer;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxRelay;
import dev.idem.upserts.UpsertOutcome;
import dev.idem.upserts.Upserts;
import dev.idem.upserts.WindowedTotals;
import dev.idem.upserts.WindowedTotals.Recomputation;
import dev.idem.upserts.WindowedTotals.WindowTotal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The samples of docs/messaging.md that need no broker client, as they are printed. An instance keeps
 * the count of {@link #ack()} calls, the stand-in for a broker acknowledgement in the inbox sample.
 */
public final class MessagingSamples {
    private int acks;

    /** How many times the inbox sample acknowledged. */
    public int acks() {
        return acks;
    }

    private void ack() {
        acks++;
    }

    public InboxOutcome inbox(DataSource dataSource, String messageId) {
        // sample: messaging-inbox
        Inbox inbox = Inbox.builder(dataSource).build();      // or Inbox.builder(store); 5 attempts, 7 days retention
        inbox.migrate();                                       // idem_inbox + idem_quarantine (or run V2__create_idem_inbox.sql)
        InboxOutcome outcome = inbox.process("ledger", messageId, (connection, message) -> insertEntry(connection, message));
        if (outcome.settled()) ack();                          // PROCESSED, DUPLICATE or QUARANTINED: ack; FAILED: let it redeliver
        // end sample
        return outcome;
    }

    /** The inbox with retention by partition (PostgreSQL, MariaDB), migrated. */
    public static Inbox partitionedInbox(DataSource dataSource) {
        // sample: messaging-inbox-retention-by-partition
        Inbox inbox = Inbox.builder(dataSource)
                .retentionByPartition(Duration.ofDays(1))   // one partition per day of expiry times; 7 days retention
                .build();
        inbox.migrate();   // a new idem_inbox is created partitioned, with its partitions
        // end sample
        return inbox;
    }

    /** The outbox with retention by partition (PostgreSQL, MariaDB), migrated. */
    public static Outbox partitionedOutbox(DataSource dataSource) {
        // sample: messaging-outbox-retention-by-partition
        Outbox outbox = Outbox.builder(dataSource)
                .retentionByPartition(Duration.ofHours(6))   // one partition per 6 h of event times; 1 day retention
                .build();
        outbox.migrate();   // a new idem_outbox is created partitioned, with its partitions
        // end sample
        return outbox;
    }

    /** A broker client of the application's own, as the broker-adapter sample uses it. */
    public interface QueueClient {
        String name();

        List<Delivery> poll() throws Exception;

        void ack(Delivery delivery) throws Exception;

        void requeue(Delivery delivery) throws Exception;

        void reject(Delivery delivery) throws Exception;

        void flushAcks() throws Exception;

        void close();
    }

    /** A delivery of {@link QueueClient}. */
    public record Delivery(String id, byte[] body, Map<String, String> headers) {
    }

    // sample: messaging-broker-batch
    /** Your broker's client as the shared loop's hooks: how it fetches and answers. The loop decides what and when. */
    public static class QueueLoop extends ConsumerLoop<Delivery> {
        private final QueueClient client;

        public QueueLoop(QueueConsumer.Builder settings, QueueClient client) {
            super(settings, "queue " + client.name());
            this.client = client;
        }

        @Override protected List<Delivery> fetch() throws Exception { return client.poll(); }
        @Override protected byte[] body(Delivery d) { return d.body(); }
        @Override protected Map<String, String> headers(Delivery d) { return d.headers(); }
        @Override protected String describe(Delivery d) { return "a delivery on queue " + client.name(); }
        @Override protected String missingIdHint() { return "publish it with a message-id header"; }
        @Override protected String refusal() { return "It was rejected (dead-lettered)."; }
        @Override protected void refuse(Delivery d, String reason) throws Exception { client.reject(d); }
        @Override protected void ack(Delivery d) throws Exception { client.ack(d); }
        @Override protected void quarantined(Delivery d) throws Exception { client.ack(d); }   // the inbox keeps it
        @Override protected void redeliver(Delivery d) throws Exception { client.requeue(d); }
        @Override protected void afterFetch() throws Exception { client.flushAcks(); }
        @Override protected void release(Throwable failure) { client.close(); }
        @Override protected Delivery rebuild(InboxMessage m) { return new Delivery(m.id(), m.payload(), m.headers()); }
    }

    /** start(), run(), close(), isRunning(), replay(...), acknowledged(), refused(): the same for every broker. */
    public static final class QueueConsumer extends InboxConsumer<Delivery, QueueConsumer> {
        QueueConsumer(QueueLoop loop) {
            super(loop, Duration.ofSeconds(30));
        }

        @Override protected String threadName() { return "queue-consumer"; }

        /** consumerName, messageIdExtractor, handler, listener, tracing, storeFailureBackoff: every consumer's settings. */
        public static final class Builder extends ConsumerBuilder<Delivery, Builder> {
            public Builder(Inbox inbox) {
                super(inbox, Delivery::id);
            }
        }
    }
    // end sample

    /** What the upserts sample answered. */
    public record Upserted(boolean inserted, UpsertOutcome balance) {
    }

    public static Upserted upserts(Connection c, String id, Map<String, ?> row) throws SQLException {
        // sample: messaging-upserts
        Upserts upserts = Upserts.of(Dialect.POSTGRESQL);     // or Upserts.of(connection)
        boolean inserted = upserts.insertOrIgnore(c, "ledger_entry", List.of("message_id"), Map.of("message_id", id, "amount", 100));
        UpsertOutcome o = upserts.insertOrUpdate(c, "balance", List.of("account"), row, "version");   // INSERTED, UPDATED or STALE
        // end sample
        return new Upserted(inserted, o);
    }

    /** A charge as the windowed totals sample reads it. */
    public record Charge(String id, Instant time, String currency, long cents) {
    }

    /** What the windowed totals sample computed. */
    public record Totals(Recomputation run, List<WindowTotal> totals) {
    }

    public static Totals windowedTotals(DataSource dataSource, List<Charge> charges, Instant from, Instant to) {
        // sample: messaging-windowed-totals
        WindowedTotals perMinute = WindowedTotals.builder(dataSource)
                .name("charges_per_minute").window(Duration.ofMinutes(1)).build();
        perMinute.migrate();                                    // idem_window_total (or run V4__create_idem_window_total.sql)
        List<WindowedTotals.Event> events = charges.stream()    // every charge of [from, to), redeliveries included
                .map(c -> new WindowedTotals.Event(c.id(), c.time(), c.currency(), c.cents())).toList();
        Recomputation run = perMinute.recompute(from, to, events);       // run it again: 0 inserted, updated, deleted
        List<WindowTotal> totals = perMinute.totals(from, to);  // by window start, then group: count and sum
        // end sample
        return new Totals(run, totals);
    }

    /** The outbox sample's broker client: whatever sends one event and returns once the broker has it. */
    public interface Broker {
        void send(OutboxMessage message) throws Exception;
    }

    /** Appends on {@code connection} (the caller commits) and starts a relay, which the caller closes. */
    public static OutboxRelay outbox(DataSource dataSource, Connection connection, String paymentId, byte[] json, Broker broker)
            throws SQLException {
        // sample: messaging-outbox
        Outbox outbox = Outbox.builder(dataSource).build();
        outbox.migrate();
        outbox.append(connection, "payment", paymentId, "PaymentCaptured", json, Map.of("content-type", "application/json"));  // in the business tx
        OutboxRelay relay = OutboxRelay.builder(outbox, message -> broker.send(message)).build().start();
        // end sample
        return relay;
    }
}
