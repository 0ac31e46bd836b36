package dev.idem.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.Inbox;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxListener;
import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxRelay;
import dev.idem.testing.Ledger;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.PublishAck;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Outbox → {@link NatsOutboxPublisher} → JetStream → {@link NatsInboxConsumer}, on the real NATS and PostgreSQL. */
class NatsOutboxTest extends NatsTestSupport {
    private static final int EVENTS = 300;
    private Outbox outbox;

    @BeforeEach
    void migrateOutbox() {
        outbox = Outbox.builder(db.dataSource()).build();
        outbox.migrate();
    }

    private OutboxMessage append(String aggregate, long amount) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            OutboxMessage m = outbox.append(c, "account", aggregate, "Booked", Long.toString(amount).getBytes(StandardCharsets.UTF_8),
                    Map.of("Content-Type", "text/plain"));
            c.commit();
            c.setAutoCommit(true);
            return m;
        }
    }

    private static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    /** Appends EVENTS events, runs a relay that crashes right after the 120th publish was acknowledged; returns the crashed event's id. */
    private UUID appendAndCrashOnce(NatsOutboxPublisher publisher) throws Exception {
        for (int i = 0; i < EVENTS; i++) {
            append("acct-" + (i % 10), i + 1);
        }
        AtomicInteger publishes = new AtomicInteger();
        List<UUID> crashed = new CopyOnWriteArrayList<>();
        OutboxRelay crashing = OutboxRelay.builder(outbox, m -> {
            publisher.publish(m);
            if (publishes.incrementAndGet() == 120) {
                crashed.add(m.messageId());
                throw new Crash();  // the process dies after JetStream stored the event, before it is marked sent
            }
        }).maxAggregates(10).maxPerAggregate(20).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (crashed.isEmpty()) {
            assertThat(System.nanoTime()).as("the relay reached its crash").isLessThan(deadline);
            try {
                crashing.runOnce();
            } catch (Crash e) {
                // as intended
            }
        }
        assertThat(outbox.pendingCount()).as("the crashed event is still pending").isGreaterThanOrEqualTo(1);
        return crashed.get(0);
    }

    /** A new relay (the restarted process) publishes what is pending, the crashed event again with the same id. */
    private void drain(NatsOutboxPublisher publisher) throws Exception {
        OutboxRelay relay = OutboxRelay.builder(outbox, publisher).maxAggregates(10).maxPerAggregate(20).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (outbox.pendingCount() > 0) {
            assertThat(System.nanoTime()).as("the outbox drained").isLessThan(deadline);
            relay.runOnce();
        }
    }

    private NatsInboxConsumer ledgerConsumer(Inbox inbox, String stream, List<String> handled) throws Exception {
        return closeLater(NatsInboxConsumer.builder(inbox).connection(nats).stream(stream).durable("ledger").consumerName("ledger")
                .batchSize(100).fetchWait(Duration.ofMillis(100)).handler((c, m) -> {
                    String id = NatsMessageIds.natsMsgId().messageId(m);
                    handled.add(id);
                    Ledger.book(c, id, Long.parseLong(new String(m.getData(), StandardCharsets.UTF_8)));
                }).build().start());
    }

    @Test
    @DisplayName("relay crash between publish and mark-sent: the republish with the same Nats-Msg-Id is dropped by the stream's duplicate window; the consumer books every event once")
    void relayCrashRepublishIsDroppedByTheDuplicateWindow() throws Exception {
        String[] s = stream(Duration.ofMinutes(2));
        Inbox inbox = inbox(b -> b);
        List<String> handled = new CopyOnWriteArrayList<>();
        NatsInboxConsumer consumer = ledgerConsumer(inbox, s[0], handled);
        NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(nats).subject(s[1]).expectedStream(s[0]).build();

        UUID crashed = appendAndCrashOnce(publisher);
        drain(publisher);
        await("the consumer settled every event", Duration.ofSeconds(60), () -> ledger.rows() == EVENTS && settled(s[0], "ledger"));

        assertThat(publisher.duplicates()).as("PubAcks that said duplicate: the republished event").isEqualTo(1);
        assertThat(streamMessages(s[0])).as("messages the stream stored").isEqualTo(EVENTS);
        assertThat(handled).hasSize(EVENTS).doesNotHaveDuplicates();
        assertThat(counts.duplicates.get()).as("the inbox never saw the republish").isZero();
        assertThat(consumer.acknowledged()).isEqualTo(EVENTS);
        assertThat(ledger.rows(crashed.toString())).isEqualTo(1);
        ledger.assertExactlyOnce(EVENTS);
    }

    @Test
    @DisplayName("relay crash, republish after the stream's duplicate window passed: the stream stores it again and the consumer's inbox drops it")
    void relayCrashRepublishAfterTheWindowIsDroppedByTheInbox() throws Exception {
        String[] s = stream(Duration.ofMillis(100));
        Inbox inbox = inbox(b -> b);
        List<String> handled = new CopyOnWriteArrayList<>();
        NatsInboxConsumer consumer = ledgerConsumer(inbox, s[0], handled);
        NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(nats).subject(s[1]).build();

        UUID crashed = appendAndCrashOnce(publisher);
        // The restarted relay comes back after the window: its republish is no longer a duplicate to the stream.
        NatsOutboxPublisher late = NatsOutboxPublisher.builder(nats).subject(s[1]).build();
        await("the duplicate window passed", Duration.ofSeconds(30), () -> {
            PublishAck probe = js.publish(message(s[1], 0), io.nats.client.PublishOptions.builder().messageId(crashed.toString()).build());
            return !probe.isDuplicate();
        });
        // That probe stored one copy too (as a too-early retry would); the relay's republish is one more.
        drain(late);
        await("the consumer settled everything", Duration.ofSeconds(60), () -> ledger.rows() == EVENTS && settled(s[0], "ledger"));

        assertThat(streamMessages(s[0])).as("the stream stored the crashed event again").isGreaterThanOrEqualTo(EVENTS + 1);
        assertThat(handled).hasSize(EVENTS).doesNotHaveDuplicates();
        assertThat(counts.duplicates.get()).as("copies of the crashed event the inbox dropped").isEqualTo(streamMessages(s[0]) - EVENTS);
        assertThat(consumer.acknowledged()).isEqualTo(streamMessages(s[0]));
        assertThat(ledger.rows(crashed.toString())).isEqualTo(1);
        assertThat(query("SELECT sum(amount) FROM ledger")).as("the crashed event's amount once, never the probe's 0")
                .isEqualTo((long) EVENTS * (EVENTS + 1) / 2);
    }

    @Test
    @DisplayName("each event is published with Nats-Msg-Id = its outbox id and aggregate, sequence and type headers; the PubAck names the stream")
    void publishedMessageCarriesIdAndHeaders() throws Exception {
        String[] s = stream(Duration.ofMinutes(2));
        OutboxMessage appended = append("acct-7", 99);
        List<PublishAck> acks = new CopyOnWriteArrayList<>();
        NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(nats).subject(m -> s[1]).build();
        assertThat(OutboxRelay.builder(outbox, m -> acks.add(publisher.send(m))).build().runOnce()).isEqualTo(1);
        assertThat(acks.get(0).getStream()).isEqualTo(s[0]);
        assertThat(acks.get(0).isDuplicate()).isFalse();

        JetStreamSubscription sub = js.subscribe(s[1], PullSubscribeOptions.builder().build());
        List<Message> got = sub.fetch(1, Duration.ofSeconds(5));
        assertThat(got).hasSize(1);
        Message m = got.get(0);
        m.ack();
        sub.unsubscribe();
        assertThat(m.getHeaders().getFirst(NatsMessageIds.NATS_MSG_ID)).isEqualTo(appended.messageId().toString());
        assertThat(m.getHeaders().getFirst(NatsOutboxPublisher.AGGREGATE_TYPE)).isEqualTo("account");
        assertThat(m.getHeaders().getFirst(NatsOutboxPublisher.AGGREGATE_ID)).isEqualTo("acct-7");
        assertThat(m.getHeaders().getFirst(NatsOutboxPublisher.SEQUENCE)).isEqualTo("1");
        assertThat(m.getHeaders().getFirst(NatsOutboxPublisher.EVENT_TYPE)).isEqualTo("Booked");
        assertThat(m.getHeaders().getFirst("Content-Type")).isEqualTo("text/plain");
        assertThat(new String(m.getData(), StandardCharsets.UTF_8)).isEqualTo("99");
    }

    @Test
    @DisplayName("an event no stream takes (or another stream than expected) fails the publish and stays pending for a retry")
    void eventWithoutStreamStaysPending() throws Exception {
        String[] s = stream(Duration.ofMinutes(2));
        append("acct-1", 5);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        OutboxListener listener = new OutboxListener() {
            @Override
            public void failed(OutboxMessage message, int attempts, Throwable cause) {
                failures.add(cause);
            }
        };
        NatsOutboxPublisher nowhere = NatsOutboxPublisher.builder(nats).subject("idem.test.nobody." + UUID.randomUUID()).timeout(Duration.ofSeconds(2)).build();
        assertThat(OutboxRelay.builder(outbox, nowhere).listener(listener).build().runOnce()).isZero();
        sql("UPDATE idem_outbox SET next_attempt_at = 0 WHERE state = 0");
        NatsOutboxPublisher wrongStream = NatsOutboxPublisher.builder(nats).subject(s[1]).expectedStream("OTHER").build();
        assertThat(OutboxRelay.builder(outbox, wrongStream).listener(listener).build().runOnce()).isZero();

        assertThat(outbox.pendingCount()).isEqualTo(1);
        assertThat(failures).hasSize(2);
        assertThat(failures.get(1)).isInstanceOf(io.nats.client.JetStreamApiException.class);
        assertThat(streamMessages(s[0])).as("a message with the wrong expected stream is not stored").isZero();
    }

    @Test
    @DisplayName("the publisher's builder requires a subject and refuses bad values")
    void publisherBuilderValidates() throws Exception {
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(nats).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("subject");
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(nats).subject("a.*")).hasMessageContaining("'a.*'");
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(nats).timeout(Duration.ofMillis(1))).hasMessageContaining("PT0.001S");
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(nats).expectedStream("a b")).hasMessageContaining("'a b'");
        assertThat(NatsOutboxPublisher.builder(nats).subject("a.b").expectedStream("S").build().toString()).contains("stream=S");
    }
}
