package dev.idem.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.idem.inbox.Inbox;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * On the real RabbitMQ: a poison message on a quorum queue whose first deliveries die with their
 * consumer (its channel closed without an ack) before the inbox could count them. The queue counted
 * them ({@code x-delivery-count}), the consumer trusts that count, so the message is quarantined
 * exactly once before the queue's {@code x-delivery-limit} dead-letters it.
 */
class RabbitPoisonCrashTest extends RabbitTestSupport {

    @Test
    @DisplayName("x-delivery-limit 4, maxAttempts 3, three deliveries lost to crashes: quarantined once, never dead-lettered")
    void deliveriesLostToCrashesCountAgainstTheLimit() throws Exception {
        String[] q = quorumQueueWithDeadLetters(4);
        Inbox inbox = inbox(b -> b.maxAttempts(3));
        publish("", q[0], List.of(id(1)), RabbitTestSupport::amountOf);
        for (int returned = 0; returned < 3; returned++) {
            loseDelivery(q[0], returned);
        }

        AtomicInteger calls = new AtomicInteger();
        RabbitInboxConsumer c = closeLater(RabbitInboxConsumer.builder(inbox).connection(broker).queue(q[0]).consumerName("ledger")
                .handler((sql, d) -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("cannot book this message");
                }).build().start());
        await("the poison message is quarantined", Duration.ofSeconds(20),
                () -> inbox.quarantine().find("ledger", id(1)).isPresent() && ready(q[0]) == 0);
        Thread.sleep(500);
        c.close();

        assertThat(inbox.quarantine().list("ledger", 10)).as("quarantined exactly once").singleElement()
                .satisfies(m -> assertThat(m.message().id()).isEqualTo(id(1)));
        assertThat(counts.quarantined.get()).isEqualTo(1);
        assertThat(calls.get()).as("one delivery after the lost ones, its handler run twice (in the batch, then on its own)")
                .isEqualTo(2);
        assertThat(ready(q[0])).as("left in the queue").isZero();
        assertThat(ready(q[1])).as("dead-lettered").isZero();
        assertThat(ledger.rows()).isZero();
    }

    /** A consumer takes the message and dies with it: its channel closes without an ack, and the queue counts a returned delivery. */
    private void loseDelivery(String queue, int returnedBefore) throws Exception {
        try (Channel doomed = broker.createChannel()) {
            GetResponse taken = null;
            Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
            while (taken == null && Instant.now().isBefore(deadline)) {
                taken = doomed.basicGet(queue, false);  // a returned delivery is back in the queue a moment later
                if (taken == null) {
                    Thread.sleep(20);
                }
            }
            assertThat(taken).as("the delivery to lose").isNotNull();
            Object count = taken.getProps().getHeaders() == null ? null : taken.getProps().getHeaders().get("x-delivery-count");
            assertThat(count == null ? 0L : ((Number) count).longValue()).as("the queue's count of returned deliveries")
                    .isEqualTo(returnedBefore);
        }
    }
}
