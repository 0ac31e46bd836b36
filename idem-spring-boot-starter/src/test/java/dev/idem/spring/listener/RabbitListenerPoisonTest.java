package dev.idem.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.spring.listener.app.LedgerApplication;
import dev.idem.spring.listener.app.RabbitPoisonBatchListener;
import dev.idem.spring.listener.app.RabbitPoisonListener;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A queue's or a container's own retry limit never loses a message, on the real RabbitMQ and
 * PostgreSQL, in process: healthy messages, a poison one and a flaky one (fails twice, then
 * succeeds). On a quorum queue whose delivery limit is just above {@code idem.inbox.max-attempts},
 * with the poison message's first deliveries lost to consumers that died (their channels closed
 * without an ack: counted by the queue, not by the inbox), and with Spring Boot's listener retry of
 * 2 retries: every healthy and flaky message is applied exactly once, the poison one quarantined
 * exactly once, and nothing is left in the queue.
 */
class RabbitListenerPoisonTest {
    private TestDatabase db;
    private Connection connection;
    private Channel channel;
    private ConfigurableApplicationContext app;
    private String queue;

    @BeforeEach
    void open() throws Exception {
        db = RealServices.postgres();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(RealServices.rabbitmqUri());
        connection = factory.newConnection();
        channel = connection.createChannel();
        queue = "idem-listen-poison-" + UUID.randomUUID().toString().substring(0, 8);
        RabbitPoisonListener.CALLS.clear();
        RabbitPoisonBatchListener.CALLS.clear();
    }

    @AfterEach
    void close() throws Exception {
        if (app != null) {
            app.close();
        }
        if (channel != null) {
            channel.queueDelete(queue);
            connection.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void aQuorumQueuesDeliveryLimitAfterDeliveriesLostToCrashes() throws Exception {
        channel.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum", "x-delivery-limit", 4));
        publish("p-2", "2:poison");
        for (int i = 0; i < 3; i++) {
            loseDelivery(i);
        }
        publishTheOthers();
        start(3);

        assertSettled();
        assertThat(RabbitPoisonListener.CALLS.get("2").get()).as("the poison message's deliveries after the lost ones, up to the"
                + " inbox's limit by the queue's count").isEqualTo(1);
    }

    @Test
    void springBootsListenerRetryOfTwoRetries() throws Exception {
        channel.queueDeclare(queue, true, false, false, null);
        publish("p-2", "2:poison");
        publishTheOthers();
        start(3, "--spring.rabbitmq.listener.simple.retry.enabled=true", "--spring.rabbitmq.listener.simple.retry.max-retries=2",
                "--spring.rabbitmq.listener.simple.retry.initial-interval=10ms");

        assertSettled();
        assertThat(RabbitPoisonListener.CALLS.get("2").get()).as("tried max-attempts times").isEqualTo(3);
    }

    /**
     * A batch listener: one batch holds healthy messages before and after a poison one and a flaky
     * one. The healthy ones are applied once, the flaky one once after its failures, the poison one
     * quarantined once, on a quorum queue whose delivery limit (4) is above the inbox's maximum (3):
     * the queue redelivers a failed batch whole, so a message behind the poison one that is not tried
     * in a delivery still uses one of its deliveries up.
     */
    @Test
    void aBatchListenerAppliesTheMessagesAroundAPoisonOneOnce() throws Exception {
        // Every redelivery of the batch counts against each of its messages, tried or not.
        channel.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum", "x-delivery-limit", 4));
        publish("b-1", "1:10");
        publish("b-2", "2:poison");
        publish("b-3", "3:30 flaky");
        publish("b-4", "4:40");
        publish("b-5", "5:50");
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                "--spring.rabbitmq.addresses=" + RealServices.rabbitmqUri(),
                "--idem.inbox.max-attempts=3",
                "--ledger.rabbit.poison-batch-queue=" + queue,
                "--logging.level.root=ERROR"));
        app = new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE).run(arguments.toArray(String[]::new));

        Inbox inbox = app.getBean(Inbox.class);
        await("every message is settled", () -> LedgerRun.totals(db.dataSource(), "poison-batch").rows() == 4
                && inbox.quarantine().find("ledger-poison-batch", "b-2").isPresent());
        app.getBean(RabbitListenerEndpointRegistry.class).getListenerContainer("ledger-poison-batch").stop();
        Thread.sleep(500);
        assertThat(channel.messageCount(queue)).as("deliveries left in the queue").isZero();
        assertThat(LedgerRun.totals(db.dataSource(), "poison-batch")).as("1, 3, 4 and 5: each applied once")
                .isEqualTo(new LedgerRun.Totals(4, 4, 10 + 30 + 40 + 50));
        assertThat(inbox.quarantine().list("ledger-poison-batch", 10)).as("the poison message, quarantined once")
                .singleElement().satisfies(q -> assertThat(q.message().id()).isEqualTo("b-2"));
    }

    private void publishTheOthers() throws Exception {
        publish("p-1", "1:10");
        publish("p-3", "3:30 flaky");
        publish("p-4", "4:40");
    }

    private void assertSettled() throws Exception {
        Inbox inbox = app.getBean(Inbox.class);
        await("every message is settled", () -> LedgerRun.totals(db.dataSource(), "poison").rows() == 3
                && inbox.quarantine().find("ledger-poison", "p-2").isPresent());
        app.getBean(RabbitListenerEndpointRegistry.class).getListenerContainer("ledger-poison").stop();
        Thread.sleep(500);
        assertThat(channel.messageCount(queue)).as("deliveries left in the queue").isZero();
        assertThat(LedgerRun.totals(db.dataSource(), "poison")).as("1, 3 and 4: each applied once")
                .isEqualTo(new LedgerRun.Totals(3, 3, 10 + 30 + 40));
        assertThat(inbox.quarantine().list("ledger-poison", 10)).as("the poison message, quarantined once")
                .singleElement().satisfies(q -> assertThat(q.message().id()).isEqualTo("p-2"));
        assertThat(RabbitPoisonListener.CALLS.get("3").get()).as("the flaky message: two failures, then applied").isEqualTo(3);
    }

    private void start(int maxAttempts, String... settings) {
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                "--spring.rabbitmq.addresses=" + RealServices.rabbitmqUri(),
                "--idem.inbox.max-attempts=" + maxAttempts,
                "--ledger.rabbit.poison-queue=" + queue,
                "--logging.level.root=ERROR"));
        arguments.addAll(List.of(settings));
        app = new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE).run(arguments.toArray(String[]::new));
    }

    /**
     * A consumer takes the poison message, the only one in the queue, and dies with it: its channel
     * closes without an ack. The queue counts the returned delivery ({@code x-delivery-count}).
     */
    private void loseDelivery(int returnedBefore) throws Exception {
        try (Channel doomed = connection.createChannel()) {
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

    private void publish(String id, String body) throws Exception {
        channel.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId(id).build(), body.getBytes(StandardCharsets.UTF_8));
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!condition.call()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(50);
        }
    }
}
