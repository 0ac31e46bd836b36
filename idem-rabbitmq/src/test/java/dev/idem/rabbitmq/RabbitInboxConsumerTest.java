package dev.idem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.GetResponse;
import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.MessageHandler;
import dev.idem.inbox.consumer.MessageIdExtractor;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.QuarantinedMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link RabbitInboxConsumer} on the real RabbitMQ and PostgreSQL. */
class RabbitInboxConsumerTest extends RabbitTestSupport {

    private RabbitInboxConsumer.Builder consumer(Inbox inbox, String queue) {
        return RabbitInboxConsumer.builder(inbox).connection(broker).queue(queue).consumerName("ledger");
    }

    @Test
    @DisplayName("a message id three times inside one batch runs its handler once; the repeats are acknowledged as duplicates")
    void duplicateInsideOneBatch() throws Exception {
        String queue = classicQueue();
        Inbox inbox = inbox(b -> b);
        CountDownLatch gateEntered = new CountDownLatch(1);
        CountDownLatch gateOpen = new CountDownLatch(1);
        List<List<String>> batches = new CopyOnWriteArrayList<>();
        AtomicInteger runsOf5 = new AtomicInteger();
        RabbitInboxConsumer c = closeLater(consumer(inbox, queue).prefetch(50)
                .handler((sql, d) -> {
                    String id = d.getProperties().getMessageId();
                    if (id.equals(id(0))) {
                        gateEntered.countDown();
                        assertThat(gateOpen.await(30, TimeUnit.SECONDS)).isTrue();
                    }
                    if (id.equals(id(5))) {
                        runsOf5.incrementAndGet();
                    }
                    book(sql, d);
                })
                .beforeAck((ch, batch) -> batches.add(batch.stream().map(d -> d.getProperties().getMessageId()).toList()))
                .build().start());

        // The first message holds the worker in its handler while the rest arrive, so they form the next batch.
        publish("", queue, List.of(id(0)), RabbitTestSupport::amountOf);
        assertThat(gateEntered.await(30, TimeUnit.SECONDS)).isTrue();
        List<String> rest = new ArrayList<>();
        for (int i = 1; i < 10; i++) {
            rest.add(id(i));
            if (i == 5) {
                rest.add(id(5));
                rest.add(id(5));
            }
        }
        publish("", queue, rest, RabbitTestSupport::amountOf);
        await("the rest was delivered to the consumer", Duration.ofSeconds(30), () -> ready(queue) == 0);
        gateOpen.countDown();
        await("all 12 deliveries acknowledged", Duration.ofSeconds(30), () -> c.acknowledged() == 12);

        assertThat(batches).hasSize(2);
        assertThat(batches.get(1)).hasSize(11);
        assertThat(Collections.frequency(batches.get(1), id(5))).as("copies of m-5 in the second batch").isEqualTo(3);
        assertThat(runsOf5.get()).as("handler runs for m-5").isEqualTo(1);
        ledger.assertExactlyOnce(10);
        assertThat(counts.duplicates.get()).isEqualTo(2);
        assertThat(ready(queue)).isZero();
    }

    @Test
    @DisplayName("the same ids reaching two consumers at once (fanout to two queues, one inbox name): each processed once; the second claim waits for the first")
    void sameIdFromTwoConsumersAtOnce() throws Exception {
        String exchange = fanout();
        String q1 = classicQueue();
        String q2 = classicQueue();
        bind(q1, exchange);
        bind(q2, exchange);
        Inbox inbox = inbox(b -> b);
        AtomicInteger lockWaitsSeen = new AtomicInteger();
        // Whichever consumer runs m-0 first holds its uncommitted claim until the other's claim of m-0 waits on it.
        MessageHandler<Delivery> handler = (sql, d) -> {
            if (d.getProperties().getMessageId().equals(id(0))) {
                await("the other consumer's claim waits on this one", Duration.ofSeconds(30), () -> sessionsWaitingOnLocks() > 0);
                lockWaitsSeen.incrementAndGet();
            }
            book(sql, d);
        };
        RabbitInboxConsumer a = closeLater(consumer(inbox, q1).prefetch(100).handler(handler).build().start());
        RabbitInboxConsumer b = closeLater(consumer(inbox, q2).prefetch(100).handler(handler).build().start());
        int n = 2_000;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(id(i));
        }
        publish(exchange, "", ids, RabbitTestSupport::amountOf);
        await("both consumers acknowledged everything", Duration.ofSeconds(60), () -> a.acknowledged() == n && b.acknowledged() == n);

        ledger.assertExactlyOnce(n);
        assertThat(lockWaitsSeen.get()).as("m-0 ran while the other consumer's claim waited").isEqualTo(1);
        assertThat(counts.processed.get()).isEqualTo(n);
        assertThat(counts.duplicates.get()).isEqualTo(n);
        assertThat(ready(q1) + ready(q2)).isZero();
    }

    private long sessionsWaitingOnLocks() throws Exception {
        return query("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                + " AND query LIKE '%idem_inbox%'");
    }

    @Test
    @DisplayName("a poison message is requeued, then quarantined in the database after 3 attempts and acked while the others flow; replay after a fix books it once")
    void poisonMessageIsQuarantinedAndReplayedOnce() throws Exception {
        String[] q = quorumQueueWithDeadLetters(10);
        Inbox inbox = inbox(b -> b.maxAttempts(3));
        AtomicInteger poisonRuns = new AtomicInteger();
        RabbitInboxConsumer c = closeLater(consumer(inbox, q[0]).prefetch(20)
                .handler((sql, d) -> {
                    if (d.getProperties().getMessageId().equals(id(42))) {
                        poisonRuns.incrementAndGet();
                        throw new IllegalStateException("cannot parse this amount");
                    }
                    book(sql, d);
                }).build().start());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            ids.add(id(i));
        }
        publish("", q[0], ids, RabbitTestSupport::amountOf);
        await("99 booked and the poison quarantined", Duration.ofSeconds(60),
                () -> ledger.rows() == 99 && counts.quarantined.get() == 1 && c.acknowledged() == 100);

        assertThat(ledger.rows("m-42")).isZero();
        assertThat(c.requeued()).as("attempts 1 and 2 went back to the queue").isEqualTo(2);
        assertThat(counts.failed.get()).isEqualTo(2);
        QuarantinedMessage poison = inbox.findQuarantined("ledger", id(42)).orElseThrow();
        assertThat(poison.attempts()).isEqualTo(3);
        assertThat(poison.errorClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(new String(poison.payload(), StandardCharsets.UTF_8)).isEqualTo("43");
        assertThat(poison.headers()).containsEntry(RabbitInboxConsumer.ROUTING_KEY, q[0]);
        assertThat(ready(q[0])).as("left in the queue").isZero();
        assertThat(ready(q[1])).as("dead-lettered by the broker: the inbox quarantined first").isZero();

        // A redelivery of the quarantined id is answered QUARANTINED and acked without running the handler.
        int runsBefore = poisonRuns.get();
        publish("", q[0], List.of(id(42)), RabbitTestSupport::amountOf);
        await("the repeat was acknowledged", Duration.ofSeconds(30), () -> c.acknowledged() == 101);
        assertThat(poisonRuns.get()).isEqualTo(runsBefore);

        // The fix: replay runs the fixed handler once on a delivery rebuilt from the quarantine.
        AtomicReference<Delivery> replayed = new AtomicReference<>();
        MessageHandler<Delivery> fixed = (sql, d) -> {
            replayed.set(d);
            book(sql, d);
        };
        assertThat(c.replay(id(42), fixed).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(c.replay(id(42), fixed).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
        assertThat(replayed.get().getProperties().getMessageId()).isEqualTo(id(42));
        assertThat(replayed.get().getEnvelope().isRedeliver()).isTrue();
        ledger.assertExactlyOnce(100);
        assertThat(inbox.listQuarantined("ledger", 10)).isEmpty();

        // Once replayed, a later delivery of the id is a plain duplicate.
        publish("", q[0], List.of(id(42)), RabbitTestSupport::amountOf);
        await("the late repeat was acknowledged", Duration.ofSeconds(30), () -> c.acknowledged() == 102);
        ledger.assertExactlyOnce(100);
    }

    @Test
    @DisplayName("a delivery without a message id, or with one over 255 characters, is refused with a clear reason and dead-lettered; an id in a message-id header is accepted")
    void deliveryWithoutIdIsRefused() throws Exception {
        String[] q = quorumQueueWithDeadLetters(10);
        Inbox inbox = inbox(b -> b);
        List<String> reasons = new CopyOnWriteArrayList<>();
        RabbitInboxConsumer c = closeLater(consumer(inbox, q[0]).prefetch(10).handler(RabbitTestSupport::book)
                .listener(new ConsumerListener<Delivery>() {
                    @Override
                    public void refused(String queue, Delivery delivery, String reason) {
                        reasons.add(reason);
                    }
                }).build().start());
        try (Channel ch = broker.createChannel()) {
            ch.confirmSelect();
            ch.basicPublish("", q[0], new AMQP.BasicProperties.Builder().deliveryMode(2).build(), "1".getBytes(StandardCharsets.UTF_8));
            ch.basicPublish("", q[0], new AMQP.BasicProperties.Builder().headers(Map.of("message-id", "x".repeat(300))).build(), "1".getBytes(StandardCharsets.UTF_8));
            ch.basicPublish("", q[0], new AMQP.BasicProperties.Builder().headers(Map.of("message-id", id(1))).build(),
                    "2".getBytes(StandardCharsets.UTF_8));
            ch.basicPublish("", q[0], withId(id(0)), "1".getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(10_000);
        }
        await("two booked, two refused", Duration.ofSeconds(30), () -> c.acknowledged() == 2 && c.refused() == 2);
        await("the refused are dead-lettered", Duration.ofSeconds(30), () -> ready(q[1]) == 2);

        ledger.assertExactlyOnce(2);
        assertThat(reasons).hasSize(2);
        assertThat(reasons.get(0)).contains("no message id").contains(q[0]).contains("dead-letter");
        assertThat(reasons.get(1)).contains("message id is unusable").contains("1-255 characters, was 300").doesNotContain("xxxx");
        assertThat(ready(q[0])).isZero();
    }

    @Test
    @DisplayName("while the database is down nothing is counted and deliveries are requeued; the quorum queue's x-delivery-limit then dead-letters them (the second line)")
    void databaseDownFallsBackToTheDeliveryLimit() throws Exception {
        String[] q = quorumQueueWithDeadLetters(2);
        Inbox inbox = inbox(b -> b.maxAttempts(5));
        AtomicInteger storeFailures = new AtomicInteger();
        sql("ALTER TABLE idem_inbox RENAME TO idem_inbox_away");
        RabbitInboxConsumer c = closeLater(consumer(inbox, q[0]).prefetch(10).handler(RabbitTestSupport::book)
                .storeFailureBackoff(Duration.ofMillis(20))
                .listener(new ConsumerListener<Delivery>() {
                    @Override
                    public void storeFailed(String queue, int deliveries, RuntimeException failure) {
                        storeFailures.incrementAndGet();
                    }
                }).build().start());
        publish("", q[0], List.of(id(0)), RabbitTestSupport::amountOf);
        await("the broker dead-lettered the message", Duration.ofSeconds(30), () -> ready(q[1]) == 1);
        c.close();
        sql("ALTER TABLE idem_inbox_away RENAME TO idem_inbox");

        assertThat(storeFailures.get()).as("deliveries that met a failing database").isEqualTo(3);
        assertThat(c.requeued()).isEqualTo(3);
        assertThat(counts.failed.get()).as("attempts the inbox could count").isZero();
        assertThat(ledger.rows()).isZero();
        try (Channel ch = broker.createChannel()) {
            GetResponse dead = ch.basicGet(q[1], true);
            assertThat(dead.getProps().getMessageId()).isEqualTo(id(0));
        }
    }

    @Test
    @DisplayName("close() finishes nothing half-way: unprocessed deliveries return to the queue and a new consumer books them once")
    void closeReturnsUnprocessedDeliveries() throws Exception {
        String queue = classicQueue();
        Inbox inbox = inbox(b -> b);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RabbitInboxConsumer first = consumer(inbox, queue).prefetch(5).handler((sql, d) -> {
            entered.countDown();
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
            book(sql, d);
        }).build().start();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ids.add(id(i));
        }
        publish("", queue, ids, RabbitTestSupport::amountOf);
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(first::close);
        closer.start();
        await("the consumer stops taking deliveries", Duration.ofSeconds(30), () -> !first.isRunning());
        release.countDown();
        closer.join(30_000);
        assertThat(first.acknowledged()).as("the batch in progress was finished and acked").isBetween(1L, 5L);

        RabbitInboxConsumer second = closeLater(consumer(inbox, queue).prefetch(25).handler(RabbitTestSupport::book).build().start());
        await("the rest is booked", Duration.ofSeconds(30), () -> ledger.rows() == 50 && ready(queue) == 0);
        await("everything acked", Duration.ofSeconds(30), () -> first.acknowledged() + second.acknowledged() == 50);
        ledger.assertExactlyOnce(50);
        assertThat(counts.duplicates.get()).isZero();
    }

    @Test
    @DisplayName("start() on a missing queue fails naming it and leaves nothing open; a consumer starts once")
    void startFailsForMissingQueue() throws Exception {
        Inbox inbox = inbox(b -> b);
        String missing = RabbitBroker.unique("missing");
        RabbitInboxConsumer c = consumer(inbox, missing).handler(RabbitTestSupport::book).build();
        assertThatThrownBy(c::start).isInstanceOf(java.io.IOException.class).hasMessageContaining(missing);
        assertThat(c.isRunning()).isFalse();
        assertThatThrownBy(c::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
        c.close();
        assertThat(broker.isOpen()).as("the application's connection stays open").isTrue();
    }

    @Test
    @DisplayName("the builder names what is missing and refuses bad values, quoting them")
    void builderValidates() throws Exception {
        Inbox inbox = inbox(b -> b);
        assertThatThrownBy(() -> RabbitInboxConsumer.builder(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RabbitInboxConsumer.builder(inbox).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("connection or connectionFactory").hasMessageContaining("queue")
                .hasMessageContaining("consumerName").hasMessageContaining("handler");
        RabbitInboxConsumer.Builder b = RabbitInboxConsumer.builder(inbox);
        assertThatThrownBy(() -> b.prefetch(0)).hasMessage("prefetch must be 1-10000, was 0");
        assertThatThrownBy(() -> b.prefetch(10_001)).hasMessage("prefetch must be 1-10000, was 10001");
        assertThatThrownBy(() -> b.queue("")).hasMessage("queue must have 1-255 bytes, was empty");
        assertThatThrownBy(() -> b.queue("q".repeat(256))).hasMessage("queue must have 1-255 bytes, was 256 bytes");
        assertThatThrownBy(() -> b.consumerName("led ger")).hasMessageContaining("position 3");
        assertThatThrownBy(() -> b.consumerName("x".repeat(201))).hasMessageContaining("201 characters");
        assertThatThrownBy(() -> b.storeFailureBackoff(Duration.ZERO)).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> RabbitInboxConsumer.quorumQueueArguments(0)).hasMessage("deliveryLimit must be 1-10000, was 0");
        assertThat(RabbitInboxConsumer.quorumQueueArguments(7)).containsEntry("x-queue-type", "quorum").containsEntry("x-delivery-limit", 7);
        RabbitInboxConsumer built = b.connection(broker).queue("q").consumerName("ledger").handler(RabbitTestSupport::book).build();
        assertThat(built.prefetch()).isEqualTo(250);
        assertThat(built.toString()).contains("queue=q").contains("consumer=ledger");
    }

    @Test
    @DisplayName("the default extractor takes the message-id property first, then a message-id header; a blank id counts as none")
    void defaultMessageIdExtractor() {
        MessageIdExtractor<Delivery> standard = RabbitMessageIds.standard();
        assertThat(standard.messageId(delivery(new AMQP.BasicProperties.Builder().messageId("p").headers(Map.of("message-id", "h")).build())))
                .isEqualTo("p");
        assertThat(standard.messageId(delivery(new AMQP.BasicProperties.Builder().messageId("").headers(Map.of("message-id", "h")).build())))
                .isEqualTo("h");
        assertThat(standard.messageId(delivery(new AMQP.BasicProperties.Builder().headers(Map.of("message-id", 42L)).build()))).isEqualTo("42");
        assertThat(standard.messageId(delivery(new AMQP.BasicProperties.Builder().build()))).isNull();
        assertThat(RabbitMessageIds.header("x-id").messageId(delivery(new AMQP.BasicProperties.Builder().headers(Map.of("x-id", true)).build())))
                .isNull();
        assertThatThrownBy(() -> RabbitMessageIds.header("")).isInstanceOf(IllegalArgumentException.class);
    }

    private static Delivery delivery(AMQP.BasicProperties props) {
        return new Delivery(new com.rabbitmq.client.Envelope(1, false, "", "q"), props, new byte[0]);
    }
}
