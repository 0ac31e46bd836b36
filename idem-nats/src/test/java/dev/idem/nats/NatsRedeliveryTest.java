package dev.idem.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.inbox.consumer.MessageHandler;
import dev.idem.inbox.Inbox;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 5's acceptance run on the real NATS JetStream: 10,000 messages, every kind of
 * forced redelivery at once, and the ledger holds each message's effect exactly once with nothing lost.
 */
class NatsRedeliveryTest extends NatsTestSupport {
    private static final int MESSAGES = 10_000;

    @Test
    @DisplayName("10,000 messages with producer retries past the duplicate window, naks and two consumers killed between commit and ack: each effect exactly once, none lost")
    void tenThousandMessagesWithForcedRedelivery() throws Exception {
        // A short duplicate window, so the producer's retries below get past the stream and only the inbox can catch them.
        String[] s = stream(Duration.ofMillis(100));
        String stream = s[0];
        String subject = s[1];
        Inbox inbox = inbox(b -> b.maxAttempts(5));

        assertThat(publish(subject, ids(MESSAGES), NatsTestSupport::amountOf)).isZero();
        // The producer's retries: every 10th message again with the same Nats-Msg-Id, after the window passed.
        List<String> retries = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i += 10) {
            retries.add(id(i));
        }
        // The newest original leaving the window means all have: retry it until the stream stores it, then the rest.
        String newest = retries.get(retries.size() - 1);
        publishUntilStored(subject, newest, amountOf(newest));
        assertThat(publish(subject, retries.subList(0, retries.size() - 1), NatsTestSupport::amountOf)).as("retries the stream dropped").isZero();
        assertThat(streamMessages(stream)).isEqualTo(MESSAGES + retries.size());

        // Broker redelivery: ten messages fail on their first delivery; the inbox counts the attempt and the consumer naks.
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        MessageHandler<Message> handler = (c, m) -> {
            String id = NatsMessageIds.natsMsgId().messageId(m);
            if (Integer.parseInt(id.substring(2)) % 1000 == 7 && m.metaData().deliveredCount() == 1) {
                failedOnce.add(id);
                throw new IllegalStateException("transient failure");
            }
            book(c, m);
        };

        // A is killed by closing its connection after its 3rd batch committed, before the acks; so is B after its 5th.
        // Their unacknowledged messages come back after AckWait (2 s) to whoever pulls from the durable next.
        Connection connA = NatsBroker.connect("idem-test-a");
        List<Message> killedA = new ArrayList<>();
        NatsInboxConsumer a = closeLater(consumer(inbox, connA, stream, handler).beforeAck(killAfter(3, killedA)).build());
        a.start();
        await("consumer A was killed", Duration.ofSeconds(60), () -> !a.isRunning());

        Connection connB = NatsBroker.connect("idem-test-b");
        List<Message> killedB = new ArrayList<>();
        NatsInboxConsumer b = closeLater(consumer(inbox, connB, stream, handler).beforeAck(killAfter(5, killedB)).build());
        b.start();
        await("consumer B was killed", Duration.ofSeconds(60), () -> !b.isRunning());
        assertThat(killedA).isNotEmpty();
        assertThat(killedB).isNotEmpty();

        NatsInboxConsumer c = closeLater(consumer(inbox, nats, stream, handler).build());
        c.start();
        await("every message is settled", Duration.ofSeconds(90), () -> ledger.rows() == MESSAGES && settled(stream, "ledger"));
        c.close();

        System.out.printf("NATS JetStream: %d messages + %d producer retries; killed batches of %d and %d messages; %d duplicates, "
                        + "%d failed attempts, %d acks (A/B/C %d/%d/%d), %d naks%n",
                MESSAGES, retries.size(), killedA.size(), killedB.size(), counts.duplicates.get(), counts.failed.get(),
                a.acknowledged() + b.acknowledged() + c.acknowledged(), a.acknowledged(), b.acknowledged(), c.acknowledged(),
                a.naks() + b.naks() + c.naks());
        ledger.assertExactlyOnce(MESSAGES);
        assertThat(counts.processed.get()).as("PROCESSED outcomes").isEqualTo(MESSAGES);
        assertThat(counts.duplicates.get()).as("DUPLICATE outcomes: every retry and every message of the killed batches")
                .isGreaterThanOrEqualTo(retries.size() + killedA.size() + killedB.size() - 10L);
        assertThat(failedOnce).as("messages whose first delivery failed").hasSizeBetween(1, 10);
        assertThat(counts.failed.get()).as("failed attempts counted by the inbox, one per such message").isEqualTo(failedOnce.size());
        assertThat(a.naks() + b.naks() + c.naks()).as("naks").isGreaterThanOrEqualTo(1);
        assertThat(counts.quarantined.get()).isZero();
        assertThat(a.acknowledged() + b.acknowledged() + c.acknowledged()).as("acks").isGreaterThanOrEqualTo(MESSAGES + retries.size());
        assertThat(settled(stream, "ledger")).isTrue();
    }

    private NatsInboxConsumer.Builder consumer(Inbox inbox, Connection connection, String stream, MessageHandler<Message> handler) {
        return NatsInboxConsumer.builder(inbox).connection(connection).stream(stream).durable("ledger").consumerName("ledger")
                .batchSize(256).fetchWait(Duration.ofMillis(200)).ackWait(Duration.ofSeconds(2)).maxDeliver(20).handler(handler);
    }

    /** Kills the consumer by closing its connection after its {@code n}-th batch committed, before any ack of it. */
    private static NatsInboxConsumer.AckHook killAfter(int n, List<Message> killed) {
        AtomicInteger batches = new AtomicInteger();
        return (connection, batch) -> {
            if (batches.incrementAndGet() == n) {
                killed.addAll(batch);
                connection.close();
            }
        };
    }
}
