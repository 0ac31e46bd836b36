package dev.idem.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test on RabbitMQ: 10,000 messages with AMQP message ids (some published twice, as a retrying
 * publisher would) to a {@code @RabbitListener} with two consumers, in two application processes.
 * The listener halts its process right after the database commit of chosen messages, before the
 * container's {@code basic.ack}; the broker redelivers every unacknowledged message to the other
 * process or the restarted one. The ledger must end exact.
 */
class RabbitListenerCrashTest {
    private static final int MESSAGES = 10_000;
    private static final int PUBLISHER_DUPLICATES = 500;

    @TempDir
    Path dir;

    @Test
    void theLedgerIsExactAfterHaltsBetweenTheCommitAndTheAck() throws Exception {
        String uri = RealServices.rabbitmqUri();
        String queue = "idem-listen-ledger-" + UUID.randomUUID().toString().substring(0, 8);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel();
             TestDatabase db = RealServices.postgres()) {
            channel.queueDeclare(queue, true, false, false, null);
            long sum = publish(channel, queue);
            List<String> arguments = List.of(
                    "--spring.datasource.url=" + LedgerRun.unsyncedUrl(db),
                    "--idem.durability-check=warn",  // the unsynced URL is deliberate: the processes die, the database does not
                    "--spring.rabbitmq.addresses=" + uri,
                    "--ledger.rabbit.queue=" + queue,
                    "--ledger.halt-at=300,6400",
                    "--ledger.markers=" + LedgerRun.markers(dir));
            try {
                int halts = LedgerRun.untilComplete(dir, arguments, 2, db.dataSource(), Map.of("rabbit", MESSAGES), Duration.ofSeconds(240));

                assertThat(halts).as("each chosen message halted a process once").isEqualTo(2);
                assertThat(LedgerRun.totals(db.dataSource(), "rabbit")).isEqualTo(new LedgerRun.Totals(MESSAGES, MESSAGES, sum));
                System.out.println("[RabbitListenerCrashTest] " + MESSAGES + " messages (+" + PUBLISHER_DUPLICATES
                        + " published twice), " + halts + " halts, ledger exact");
            } finally {
                channel.queueDelete(queue);
            }
        }
    }

    private static long publish(Channel channel, String queue) throws Exception {
        channel.confirmSelect();
        long sum = 0;
        for (int n = 1; n <= MESSAGES; n++) {
            long amount = n % 89 + 1;
            sum += amount;
            AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId("payment-" + n).deliveryMode(2).build();
            byte[] body = (n + ":" + amount).getBytes(StandardCharsets.UTF_8);
            channel.basicPublish("", queue, properties, body);
            if (n % 20 == 0 && n / 20 <= PUBLISHER_DUPLICATES) {
                channel.basicPublish("", queue, properties, body);
            }
        }
        channel.waitForConfirmsOrDie(30_000);
        return sum;
    }
}
