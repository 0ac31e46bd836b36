package dev.idem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Delivery;
import dev.idem.inbox.consumer.MessageHandler;
import dev.idem.inbox.Inbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 5's acceptance run on the real broker: 10,000 messages, every kind of forced
 * redelivery at once, and the ledger holds each message's effect exactly once with nothing lost.
 */
class RabbitRedeliveryTest extends RabbitTestSupport {
    private static final int MESSAGES = 10_000;

    @Test
    @DisplayName("10,000 messages with producer retries, nack/requeue and two consumers killed between commit and ack: each effect exactly once, none lost")
    void tenThousandMessagesWithForcedRedelivery() throws Exception {
        String[] q = quorumQueueWithDeadLetters(20);
        String queue = q[0];
        Inbox inbox = inbox(b -> b.maxAttempts(5));

        // The producer: every message once, and every 10th again a little later with the same message-id,
        // as a producer does whose confirm got lost (1,000 retries).
        List<String> publishes = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            publishes.add(id(i));
            if (i >= 5 && (i - 5) % 10 == 0) {
                publishes.add(id(i - 5));
            }
        }
        int retries = publishes.size() - MESSAGES;
        assertThat(retries).isEqualTo(1_000);
        publish("", queue, publishes, RabbitTestSupport::amountOf);

        // Broker redelivery: ten messages fail on their first delivery (redeliver flag unset); the inbox
        // counts the attempt and the consumer nacks them back into the queue.
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        MessageHandler<Delivery> handler = (c, d) -> {
            int i = Integer.parseInt(d.getProperties().getMessageId().substring(2));
            if (i % 1000 == 7 && !d.getEnvelope().isRedeliver()) {
                failedOnce.add(d.getProperties().getMessageId());
                throw new IllegalStateException("transient failure");
            }
            book(c, d);
        };

        // Consumer A owns its connection and is killed by closing that connection after its 3rd batch
        // committed, before the acks; consumer B is killed by closing its channel after its 5th batch.
        List<Delivery> killedA = new ArrayList<>();
        RabbitInboxConsumer a = closeLater(RabbitInboxConsumer.builder(inbox).connectionFactory(RabbitBroker.factory())
                .queue(queue).consumerName("ledger").prefetch(250).handler(handler)
                .beforeAck(killAfter(3, killedA, ch -> ch.getConnection().abort())).build());
        a.start();
        await("consumer A was killed", Duration.ofSeconds(60), () -> !a.isRunning());

        List<Delivery> killedB = new ArrayList<>();
        RabbitInboxConsumer b = closeLater(RabbitInboxConsumer.builder(inbox).connection(broker)
                .queue(queue).consumerName("ledger").prefetch(250).handler(handler)
                .beforeAck(killAfter(5, killedB, Channel::abort)).build());
        b.start();
        await("consumer B was killed", Duration.ofSeconds(60), () -> !b.isRunning());
        assertThat(killedA).isNotEmpty();
        assertThat(killedB).isNotEmpty();

        // Consumer C takes over everything the killed ones left unacknowledged, and the rest.
        RabbitInboxConsumer c = closeLater(RabbitInboxConsumer.builder(inbox).connection(broker)
                .queue(queue).consumerName("ledger").prefetch(250).handler(handler).build());
        c.start();
        long publishedMessages = publishes.size();
        await("every delivery is settled", Duration.ofSeconds(90),
                () -> ledger.rows() == MESSAGES && a.acknowledged() + b.acknowledged() + c.acknowledged() >= publishedMessages
                        && ready(queue) == 0);
        c.close();
        System.out.printf("RabbitMQ: %d messages + %d producer retries; killed batches of %d and %d deliveries; %d duplicates, %d failed attempts, %d acks (A/B/C %d/%d/%d), %d requeued%n",
                MESSAGES, retries, killedA.size(), killedB.size(), counts.duplicates.get(), counts.failed.get(),
                a.acknowledged() + b.acknowledged() + c.acknowledged(), a.acknowledged(), b.acknowledged(), c.acknowledged(),
                a.requeued() + b.requeued() + c.requeued());

        ledger.assertExactlyOnce(MESSAGES);
        assertThat(counts.processed.get()).as("PROCESSED outcomes").isEqualTo(MESSAGES);
        // Every producer retry, and every delivery of the killed batches (committed, never acked), came back as a duplicate.
        assertThat(counts.duplicates.get()).as("DUPLICATE outcomes")
                .isGreaterThanOrEqualTo(retries + killedA.size() + killedB.size() - 10L);
        assertThat(failedOnce).as("messages whose first delivery failed").hasSizeBetween(1, 10);
        assertThat(counts.failed.get()).as("failed attempts counted by the inbox, one per such message").isEqualTo(failedOnce.size());
        assertThat(a.requeued() + b.requeued() + c.requeued()).as("nacked back to the queue").isGreaterThanOrEqualTo(1);
        assertThat(counts.quarantined.get()).isZero();
        assertThat(query("SELECT count(*) FROM idem_quarantine WHERE state = 1")).isZero();
        assertThat(ready(queue)).as("left in the queue").isZero();
        assertThat(ready(q[1])).as("dead-lettered").isZero();
    }

    /** Kills the consumer (by {@code kill}) after its {@code n}-th batch committed, before any ack of it. */
    private static RabbitInboxConsumer.AckHook killAfter(int n, List<Delivery> killed, ChannelAction kill) {
        AtomicInteger batches = new AtomicInteger();
        AtomicReference<Boolean> done = new AtomicReference<>(false);
        return (channel, batch) -> {
            if (batches.incrementAndGet() == n && !done.getAndSet(true)) {
                killed.addAll(batch);
                kill.run(channel);
            }
        };
    }

    @FunctionalInterface
    private interface ChannelAction {
        void run(Channel channel) throws Exception;
    }
}
