package dev.idem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.LongString;
import dev.idem.inbox.Inbox;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxListener;
import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxRelay;
import dev.idem.testing.Ledger;
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

/** Outbox → {@link RabbitOutboxPublisher} → RabbitMQ → {@link RabbitInboxConsumer}, on the real broker and PostgreSQL. */
class RabbitOutboxTest extends RabbitTestSupport {
    private Outbox outbox;

    @BeforeEach
    void migrateOutbox() {
        outbox = Outbox.builder(db.dataSource()).build();
        outbox.migrate();
    }

    /** Appends {@code amount} as a "Booked" event of {@code aggregate}, in a business transaction of its own. */
    private OutboxMessage append(String aggregate, long amount) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            OutboxMessage m = outbox.append(c, "account", aggregate, "Booked", Long.toString(amount).getBytes(StandardCharsets.UTF_8),
                    Map.of("content-type", "text/plain"));
            c.commit();
            c.setAutoCommit(true);
            return m;
        }
    }

    private static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    @Test
    @DisplayName("relay → broker → idempotent consumer: a relay crash between publish and mark-sent republishes with the same id, and the consumer books it once")
    void relayCrashRepublishesWithTheSameIdAndTheInboxDedupes() throws Exception {
        String queue = classicQueue();
        Inbox inbox = inbox(b -> b);
        int events = 300;
        for (int i = 0; i < events; i++) {
            append("acct-" + (i % 10), i + 1);
        }
        List<String> consumedIds = new CopyOnWriteArrayList<>();
        RabbitInboxConsumer consumer = closeLater(RabbitInboxConsumer.builder(inbox).connection(broker).queue(queue)
                .consumerName("ledger").prefetch(100).handler((c, d) -> {
                    consumedIds.add(d.getProperties().getMessageId());
                    Ledger.book(c, d.getProperties().getMessageId(), Long.parseLong(new String(d.getBody(), StandardCharsets.UTF_8)));
                }).build().start());

        RabbitOutboxPublisher rabbit = closeLater(RabbitOutboxPublisher.builder(broker).routingKey(queue).build());
        AtomicInteger publishes = new AtomicInteger();
        List<UUID> crashedIds = new CopyOnWriteArrayList<>();
        // The 120th publish reaches the broker (confirmed), then the relay's process dies before marking it sent.
        OutboxRelay crashing = OutboxRelay.builder(outbox, m -> {
            rabbit.publish(m);
            if (publishes.incrementAndGet() == 120) {
                crashedIds.add(m.messageId());
                throw new Crash();
            }
        }).maxAggregates(10).maxPerAggregate(20).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        boolean crashed = false;
        while (!crashed) {
            assertThat(System.nanoTime()).as("the relay reached its crash").isLessThan(deadline);
            try {
                crashing.runOnce();
            } catch (Crash e) {
                crashed = true;
            }
        }
        assertThat(outbox.pendingCount()).as("the crashed event is still pending").isGreaterThanOrEqualTo(1);

        // A new relay (the restarted process) publishes what is pending, the crashed event again with the same id.
        OutboxRelay relay = OutboxRelay.builder(outbox, rabbit).maxAggregates(10).maxPerAggregate(20).build();
        while (outbox.pendingCount() > 0) {
            assertThat(System.nanoTime()).as("the outbox drained").isLessThan(deadline);
            relay.runOnce();
        }
        await("the consumer settled every delivery", Duration.ofSeconds(60), () -> consumer.acknowledged() == events + 1);

        assertThat(consumedIds).as("the handler ran once per event").hasSize(events).doesNotHaveDuplicates();
        ledger.assertExactlyOnce(events);
        assertThat(counts.duplicates.get()).as("the republished event was a duplicate").isEqualTo(1);
        assertThat(ledger.rows(crashedIds.get(0).toString())).isEqualTo(1);
        assertThat(ready(queue)).isZero();
    }

    @Test
    @DisplayName("each event is published persistent, with message-id = its outbox id, type, timestamp and aggregate/sequence headers")
    void publishedMessageCarriesIdAndHeaders() throws Exception {
        String queue = classicQueue();
        OutboxMessage appended = append("acct-7", 99);
        RabbitOutboxPublisher rabbit = closeLater(RabbitOutboxPublisher.builder(broker).exchange("").routingKey(m -> queue).build());
        assertThat(OutboxRelay.builder(outbox, rabbit).build().runOnce()).isEqualTo(1);

        GetResponse got = admin.basicGet(queue, true);
        assertThat(got).isNotNull();
        assertThat(got.getProps().getMessageId()).isEqualTo(appended.messageId().toString());
        assertThat(got.getProps().getDeliveryMode()).isEqualTo(2);
        assertThat(got.getProps().getType()).isEqualTo("Booked");
        assertThat(got.getProps().getContentType()).isEqualTo("text/plain");
        assertThat(got.getProps().getTimestamp()).isNotNull();
        Map<String, Object> headers = got.getProps().getHeaders();
        assertThat(text(headers.get(RabbitOutboxPublisher.AGGREGATE_TYPE))).isEqualTo("account");
        assertThat(text(headers.get(RabbitOutboxPublisher.AGGREGATE_ID))).isEqualTo("acct-7");
        assertThat(text(headers.get(RabbitOutboxPublisher.EVENT_TYPE))).isEqualTo("Booked");
        assertThat(headers.get(RabbitOutboxPublisher.SEQUENCE)).isEqualTo(1L);
        assertThat(text(headers.get("content-type"))).isEqualTo("text/plain");
        assertThat(new String(got.getBody(), StandardCharsets.UTF_8)).isEqualTo("99");
    }

    private static String text(Object header) {
        return header instanceof LongString ? header.toString() : (String) header;
    }

    @Test
    @DisplayName("an event no queue takes is returned, the publish fails and the relay keeps it pending for a retry")
    void unroutableEventStaysPending() throws Exception {
        append("acct-1", 5);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        RabbitOutboxPublisher rabbit = closeLater(RabbitOutboxPublisher.builder(broker).routingKey(RabbitBroker.unique("nobody")).build());
        OutboxRelay relay = OutboxRelay.builder(outbox, rabbit).listener(new OutboxListener() {
            @Override
            public void failed(OutboxMessage message, int attempts, Throwable cause) {
                failures.add(cause);
            }
        }).build();

        assertThat(relay.runOnce()).isZero();
        assertThat(outbox.pendingCount()).isEqualTo(1);
        assertThat(failures).hasSize(1);
        assertThat(failures.get(0)).isInstanceOf(java.io.IOException.class).hasMessageContaining("unroutable");
    }

    @Test
    @DisplayName("a publish to a missing exchange fails (the broker closes the channel); once the exchange exists the same publisher goes through on a new channel")
    void publisherRecoversItsChannel() throws Exception {
        String queue = classicQueue();
        String exchange = RabbitBroker.unique("late");
        append("acct-1", 5);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        RabbitOutboxPublisher publisher = closeLater(RabbitOutboxPublisher.builder(broker).exchange(exchange).routingKey("k").build());
        OutboxRelay relay = OutboxRelay.builder(outbox, publisher).listener(new OutboxListener() {
            @Override
            public void failed(OutboxMessage message, int attempts, Throwable cause) {
                failures.add(cause);
            }
        }).build();
        assertThat(relay.runOnce()).isZero();
        assertThat(failures).hasSize(1);
        assertThat(outbox.pendingCount()).isEqualTo(1);

        fanout(exchange);
        bind(queue, exchange);
        sql("UPDATE idem_outbox SET next_attempt_at = 0 WHERE state = 0");  // its backoff, fast-forwarded
        assertThat(relay.runOnce()).isEqualTo(1);
        assertThat(ready(queue)).isEqualTo(1);
        assertThat(broker.isOpen()).as("the application's connection stays open").isTrue();
    }

    @Test
    @DisplayName("the publisher's builder requires a routing key and refuses bad values")
    void publisherBuilderValidates() {
        assertThatThrownBy(() -> RabbitOutboxPublisher.builder(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RabbitOutboxPublisher.builder(broker).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("routingKey");
        assertThatThrownBy(() -> RabbitOutboxPublisher.builder(broker).confirmTimeout(Duration.ZERO)).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> RabbitOutboxPublisher.builder(broker).routingKey("k".repeat(256))).hasMessageContaining("256");
        assertThat(RabbitOutboxPublisher.builder(broker).exchange("x").routingKey("k").build().toString()).contains("exchange='x'");
    }
}
