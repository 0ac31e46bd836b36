package dev.idem.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.MessageHandler;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.QuarantinedMessage;
import io.nats.client.Message;
import io.nats.client.PublishOptions;
import io.nats.client.Subscription;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link NatsInboxConsumer} on the real NATS JetStream and PostgreSQL. */
class NatsInboxConsumerTest extends NatsTestSupport {

    private NatsInboxConsumer.Builder consumer(Inbox inbox, String stream, String durable) {
        return NatsInboxConsumer.builder(inbox).connection(nats).stream(stream).durable(durable).consumerName("ledger")
                .fetchWait(Duration.ofMillis(100));
    }

    @Test
    @DisplayName("a message id three times inside one fetch runs its handler once; the repeats are acked as duplicates")
    void duplicateInsideOneBatch() throws Exception {
        String[] s = stream(Duration.ofMillis(100));
        Inbox inbox = inbox(b -> b);
        // Twelve messages in the stream before the consumer starts, so its first fetch takes them all.
        for (int i = 0; i < 10; i++) {
            publishUntilStored(s[1], id(i), amountOf(id(i)));
            if (i == 5) {
                publishUntilStored(s[1], id(5), amountOf(id(5)));
                publishUntilStored(s[1], id(5), amountOf(id(5)));
            }
        }
        assertThat(streamMessages(s[0])).isEqualTo(12);
        List<List<String>> batches = new CopyOnWriteArrayList<>();
        AtomicInteger runsOf5 = new AtomicInteger();
        NatsInboxConsumer c = closeLater(consumer(inbox, s[0], "ledger").batchSize(50).fetchWait(Duration.ofSeconds(1))
                .handler((sql, m) -> {
                    if (NatsMessageIds.natsMsgId().messageId(m).equals(id(5))) {
                        runsOf5.incrementAndGet();
                    }
                    book(sql, m);
                })
                .beforeAck((conn, batch) -> batches.add(batch.stream().map(m -> NatsMessageIds.natsMsgId().messageId(m)).toList()))
                .build().start());
        await("all 12 acked", Duration.ofSeconds(30), () -> c.acknowledged() == 12);

        assertThat(batches.get(0)).hasSize(12);
        assertThat(Collections.frequency(batches.get(0), id(5))).as("copies of m-5 in the first fetch").isEqualTo(3);
        assertThat(runsOf5.get()).as("handler runs for m-5").isEqualTo(1);
        ledger.assertExactlyOnce(10);
        assertThat(counts.duplicates.get()).isEqualTo(2);
        assertThat(settled(s[0], "ledger")).isTrue();
    }

    @Test
    @DisplayName("the same ids reaching two consumers at once (two durables, one inbox name): each processed once; the second claim waits for the first")
    void sameIdFromTwoConsumersAtOnce() throws Exception {
        String[] s = stream(Duration.ofMinutes(2));
        Inbox inbox = inbox(b -> b);
        AtomicInteger lockWaitsSeen = new AtomicInteger();
        // Whichever consumer runs m-0 first holds its uncommitted claim until the other's claim of m-0 waits on it.
        MessageHandler<Message> handler = (sql, m) -> {
            if (NatsMessageIds.natsMsgId().messageId(m).equals(id(0))) {
                await("the other consumer's claim waits on this one", Duration.ofSeconds(30), () -> sessionsWaitingOnLocks() > 0);
                lockWaitsSeen.incrementAndGet();
            }
            book(sql, m);
        };
        NatsInboxConsumer a = closeLater(consumer(inbox, s[0], "a").batchSize(100).handler(handler).build().start());
        NatsInboxConsumer b = closeLater(consumer(inbox, s[0], "b").batchSize(100).handler(handler).build().start());
        int n = 2_000;
        publish(s[1], ids(n), NatsTestSupport::amountOf);
        await("both durables settled everything", Duration.ofSeconds(60),
                () -> a.acknowledged() == n && b.acknowledged() == n && settled(s[0], "a") && settled(s[0], "b"));

        ledger.assertExactlyOnce(n);
        assertThat(lockWaitsSeen.get()).as("m-0 ran while the other consumer's claim waited").isEqualTo(1);
        assertThat(counts.processed.get()).isEqualTo(n);
        assertThat(counts.duplicates.get()).isEqualTo(n);
    }

    private long sessionsWaitingOnLocks() throws Exception {
        return query("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                + " AND query LIKE '%idem_inbox%'");
    }

    @Test
    @DisplayName("a poison message is nak'ed, then quarantined in the database after 3 attempts and terminated while the others flow; replay after a fix books it once")
    void poisonMessageIsQuarantinedAndReplayedOnce() throws Exception {
        String[] s = stream(Duration.ofMillis(100));
        Inbox inbox = inbox(b -> b.maxAttempts(3));
        AtomicInteger poisonRuns = new AtomicInteger();
        NatsInboxConsumer c = closeLater(consumer(inbox, s[0], "ledger").batchSize(20).maxDeliver(10).nakDelay(Duration.ofMillis(20))
                .handler((sql, m) -> {
                    if (NatsMessageIds.natsMsgId().messageId(m).equals(id(42))) {
                        poisonRuns.incrementAndGet();
                        throw new IllegalStateException("cannot parse this amount");
                    }
                    book(sql, m);
                }).build().start());
        publish(s[1], ids(100), NatsTestSupport::amountOf);
        await("99 booked, the poison quarantined, everything settled", Duration.ofSeconds(60),
                () -> ledger.rows() == 99 && counts.quarantined.get() == 1 && settled(s[0], "ledger"));

        assertThat(ledger.rows("m-42")).isZero();
        assertThat(c.naks()).as("attempts 1 and 2 were nak'ed").isEqualTo(2);
        assertThat(c.terminated()).as("attempt 3 quarantined and terminated it").isEqualTo(1);
        assertThat(c.acknowledged()).isEqualTo(99);
        assertThat(counts.failed.get()).isEqualTo(2);
        QuarantinedMessage poison = inbox.findQuarantined("ledger", id(42)).orElseThrow();
        assertThat(poison.attempts()).isEqualTo(3);
        assertThat(poison.errorClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(new String(poison.payload(), StandardCharsets.UTF_8)).isEqualTo("43");
        assertThat(poison.headers()).containsEntry(NatsInboxConsumer.SUBJECT, s[1]).containsEntry(NatsInboxConsumer.STREAM, s[0]);

        // A producer's late repeat of the quarantined id is answered QUARANTINED and terminated without running the handler.
        int runsBefore = poisonRuns.get();
        publishUntilStored(s[1], id(42), amountOf(id(42)));
        await("the repeat was terminated", Duration.ofSeconds(30), () -> c.terminated() == 2 && settled(s[0], "ledger"));
        assertThat(poisonRuns.get()).isEqualTo(runsBefore);

        // The fix: replay runs the fixed handler once on a message rebuilt from the quarantine.
        AtomicReference<Message> replayed = new AtomicReference<>();
        MessageHandler<Message> fixed = (sql, m) -> {
            replayed.set(m);
            book(sql, m);
        };
        assertThat(c.replay(id(42), fixed).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(c.replay(id(42), fixed).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
        assertThat(replayed.get().getSubject()).isEqualTo(s[1]);
        assertThat(NatsMessageIds.natsMsgId().messageId(replayed.get())).isEqualTo(id(42));
        ledger.assertExactlyOnce(100);
        assertThat(inbox.listQuarantined("ledger", 10)).isEmpty();

        // Once replayed, a later delivery of the id is a plain duplicate.
        publishUntilStored(s[1], id(42), amountOf(id(42)));
        await("the late repeat was acked", Duration.ofSeconds(30), () -> c.acknowledged() == 100 && settled(s[0], "ledger"));
        ledger.assertExactlyOnce(100);
    }

    @Test
    @DisplayName("a Nats-Msg-Id over 255 characters is refused (term) with a clear reason; without the header the stream sequence is the id")
    void unusableIdIsRefusedAndMissingIdFallsBackToTheSequence() throws Exception {
        String[] s = stream(Duration.ofMinutes(2));
        Inbox inbox = inbox(b -> b);
        List<String> reasons = new CopyOnWriteArrayList<>();
        NatsInboxConsumer c = closeLater(consumer(inbox, s[0], "ledger").handler(NatsTestSupport::book)
                .listener(new ConsumerListener<Message>() {
                    @Override
                    public void refused(String stream, Message message, String reason) {
                        reasons.add(reason);
                    }
                }).build().start());
        js.publish(message(s[1], 1), PublishOptions.builder().messageId("x".repeat(300)).build());
        long sequence = js.publish(message(s[1], 2)).getSeqno();
        js.publish(message(s[1], 1), PublishOptions.builder().messageId(id(0)).build());
        await("two booked, one refused, all settled", Duration.ofSeconds(30),
                () -> c.acknowledged() == 2 && c.refused() == 1 && settled(s[0], "ledger"));

        ledger.assertExactlyOnce(2);
        assertThat(ledger.rows(s[0] + ":" + sequence)).isEqualTo(1);
        assertThat(reasons).hasSize(1);
        assertThat(reasons.get(0)).contains("message id is unusable").contains("1-255 characters, was 300").contains(s[0])
                .contains("term").doesNotContain("xxxx");
    }

    @Test
    @DisplayName("while the database is down nothing is counted and messages are nak'ed; JetStream's MaxDeliver then gives up on them (the second line)")
    void databaseDownFallsBackToMaxDeliver() throws Exception {
        String[] s = stream(Duration.ofMinutes(2));
        Inbox inbox = inbox(b -> b.maxAttempts(2));
        AtomicInteger storeFailures = new AtomicInteger();
        List<Message> advisories = new CopyOnWriteArrayList<>();
        Subscription advisory = nats.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + s[0] + ".ledger");
        nats.flush(Duration.ofSeconds(5));
        sql("ALTER TABLE idem_inbox RENAME TO idem_inbox_away");
        NatsInboxConsumer c = closeLater(consumer(inbox, s[0], "ledger").maxDeliver(3).storeFailureBackoff(Duration.ofMillis(20))
                .handler(NatsTestSupport::book)
                .listener(new ConsumerListener<Message>() {
                    @Override
                    public void storeFailed(String stream, int messages, RuntimeException failure) {
                        storeFailures.incrementAndGet();
                    }
                }).build().start());
        publish(s[1], List.of(id(0)), NatsTestSupport::amountOf);
        Message max = advisory.nextMessage(Duration.ofSeconds(30));
        assertThat(max).as("JetStream's MAX_DELIVERIES advisory").isNotNull();
        advisories.add(max);
        c.close();
        sql("ALTER TABLE idem_inbox_away RENAME TO idem_inbox");

        assertThat(new String(advisories.get(0).getData(), StandardCharsets.UTF_8)).contains("\"deliveries\":3");
        assertThat(storeFailures.get()).as("deliveries that met a failing database").isEqualTo(3);
        assertThat(c.naks()).isEqualTo(3);
        assertThat(counts.failed.get()).as("attempts the inbox could count").isZero();
        assertThat(ledger.rows()).isZero();
    }

    @Test
    @DisplayName("start() on a missing stream fails naming it; a consumer starts once; close() leaves the durable and the connection")
    void startFailsForMissingStream() throws Exception {
        Inbox inbox = inbox(b -> b);
        String missing = NatsBroker.unique("missing");
        NatsInboxConsumer c = consumer(inbox, missing, "ledger").handler(NatsTestSupport::book).build();
        assertThatThrownBy(c::start).isInstanceOf(java.io.IOException.class).hasMessageContaining(missing);
        assertThatThrownBy(c::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
        c.close();

        String[] s = stream(Duration.ofMinutes(2));
        NatsInboxConsumer running = consumer(inbox, s[0], "kept").handler(NatsTestSupport::book).build().start();
        assertThat(running.isRunning()).isTrue();
        running.close();
        assertThat(running.isRunning()).isFalse();
        assertThat(consumerInfo(s[0], "kept").getConsumerConfiguration().getMaxDeliver()).isEqualTo(-1);
        assertThat(nats.getStatus()).isEqualTo(io.nats.client.Connection.Status.CONNECTED);
    }

    @Test
    @DisplayName("the builder names what is missing, refuses bad values and a MaxDeliver below the inbox's maxAttempts")
    void builderValidates() {
        Inbox inbox = inbox(b -> b.maxAttempts(5));
        assertThatThrownBy(() -> NatsInboxConsumer.builder(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> NatsInboxConsumer.builder(inbox).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("connection").hasMessageContaining("stream").hasMessageContaining("durable")
                .hasMessageContaining("consumerName").hasMessageContaining("handler");
        NatsInboxConsumer.Builder b = NatsInboxConsumer.builder(inbox);
        assertThatThrownBy(() -> b.stream("a.b")).hasMessageContaining("'a.b'");
        assertThatThrownBy(() -> b.durable("")).hasMessage("durable must have 1-255 characters, was 0 characters");
        assertThatThrownBy(() -> b.batchSize(0)).hasMessage("batchSize must be 1-10000, was 0");
        assertThatThrownBy(() -> b.ackWait(Duration.ofMillis(10))).hasMessageContaining("PT0.01S");
        assertThatThrownBy(() -> b.maxDeliver(0)).hasMessageContaining("was 0");
        assertThatThrownBy(() -> b.nakDelay(Duration.ofSeconds(-1))).hasMessageContaining("PT-1S");
        assertThatThrownBy(() -> b.filterSubject("a b")).hasMessageContaining("'a b'");
        assertThatThrownBy(() -> b.consumerName("led ger")).hasMessageContaining("position 3");
        b.connection(nats).stream("S").durable("d").consumerName("ledger").handler(NatsTestSupport::book);
        assertThatThrownBy(() -> b.maxDeliver(4).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxDeliver 4 is not above the inbox's maxAttempts 5");
        assertThatThrownBy(() -> b.maxDeliver(5).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxDeliver 5 is not above the inbox's maxAttempts 5").hasMessageContaining("at least 6");
        assertThatThrownBy(() -> b.maxDeliver(6).batchSize(500).maxAckPending(100).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxAckPending 100 is below batchSize 500");
        assertThat(b.maxAckPending(1000).build().toString()).contains("stream=S").contains("durable=d");
    }

    @Test
    @DisplayName("the default extractor takes Nats-Msg-Id first, then the stream sequence (JetStream messages only)")
    void defaultMessageIdExtractor() {
        Headers headers = new Headers().put(NatsMessageIds.NATS_MSG_ID, "abc").put("X-Id", "x");
        Message withId = NatsMessage.builder().subject("s").headers(headers).data(new byte[0]).build();
        Message without = NatsMessage.builder().subject("s").data(new byte[0]).build();
        assertThat(NatsMessageIds.standard().messageId(withId)).isEqualTo("abc");
        assertThat(NatsMessageIds.standard().messageId(without)).as("not a JetStream message: no sequence").isNull();
        assertThat(NatsMessageIds.header("X-Id").messageId(withId)).isEqualTo("x");
        assertThat(NatsMessageIds.header("X-Other").orElse(NatsMessageIds.natsMsgId()).messageId(withId)).isEqualTo("abc");
        assertThatThrownBy(() -> NatsMessageIds.header("")).isInstanceOf(IllegalArgumentException.class);
    }
}
