package dev.idem.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.QuarantinedMessage;
import dev.idem.spring.internal.listener.MicrometerListenerMeters;
import dev.idem.spring.listener.app.LedgerApplication;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import dev.idem.spring.listener.app.RabbitCheckedListeners;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application with {@code @IdempotentListener} {@code @RabbitListener} methods, in process, on the
 * real RabbitMQ and PostgreSQL: a poison message is tried {@code idem.inbox.max-attempts} times, then
 * quarantined and acknowledged while the other messages flow; a replay from the quarantine runs once.
 * A MANUAL-ack listener's acknowledgement takes effect after the commit, and its duplicates are
 * acknowledged by the advice.
 */
class RabbitListenerQuarantineTest {
    private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    private static final String CHECKED = "idem-listen-checked-" + SUFFIX;
    private static final String MANUAL = "idem-listen-manual-" + SUFFIX;
    private static TestDatabase db;
    private static Connection connection;
    private static Channel channel;
    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() throws Exception {
        String uri = RealServices.rabbitmqUri();
        db = RealServices.postgres();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        connection = factory.newConnection();
        channel = connection.createChannel();
        channel.queueDeclare(CHECKED, true, false, false, null);
        channel.queueDeclare(MANUAL, true, false, false, null);
        app = new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE).run(
                "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                "--spring.rabbitmq.addresses=" + uri,
                "--idem.inbox.max-attempts=3",
                "--ledger.rabbit.checked-queue=" + CHECKED,
                "--ledger.rabbit.manual-queue=" + MANUAL,
                "--logging.level.root=ERROR");
    }

    @AfterAll
    static void stop() throws Exception {
        if (app != null) {
            app.close();
        }
        if (channel != null) {
            channel.queueDelete(CHECKED);
            channel.queueDelete(MANUAL);
            connection.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void aPoisonMessageIsQuarantinedAfterItsAttemptsAndAReplayRunsOnce() throws Exception {
        publish(CHECKED, "q-1", "101:5");
        publish(CHECKED, "q-2", "102:poison");
        publish(CHECKED, "q-3", "103:7");
        publish(CHECKED, "q-1", "101:5");  // a duplicate

        Inbox inbox = app.getBean(Inbox.class);
        await("the poison message is quarantined", () -> inbox.quarantine().find("ledger-checked", "q-2").isPresent());
        await("the queue is drained and acknowledged", () -> channel.messageCount(CHECKED) == 0 && rows("checked") == 2);

        assertThat(calls("checked-102")).as("tried max-attempts times, then acknowledged").isEqualTo(3);
        assertThat(calls("checked-101")).as("the duplicate did not call the method").isEqualTo(1);
        assertThat(calls("checked-103")).isEqualTo(1);
        QuarantinedMessage quarantined = inbox.quarantine().find("ledger-checked", "q-2").orElseThrow();
        assertThat(quarantined.attempts()).isEqualTo(3);
        assertThat(new String(quarantined.message().payload(), StandardCharsets.UTF_8)).isEqualTo("102:poison");

        // After a fix: the operator replays it, and its effect commits with its release from the quarantine.
        InboxOutcome replay = inbox.quarantine().replay("ledger-checked", "q-2", (c, message) -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (listener, number, amount) VALUES ('checked', 102, 0)")) {
                ps.executeUpdate();
            }
        });
        InboxOutcome again = inbox.quarantine().replay("ledger-checked", "q-2", (c, message) -> {
            throw new AssertionError("a second replay must not run");
        });
        publish(CHECKED, "q-2", "102:poison");  // a late redelivery of the poison message

        assertThat(replay.status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(again.status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
        await("the late redelivery is acknowledged", () -> channel.messageCount(CHECKED) == 0);
        Thread.sleep(300);
        assertThat(calls("checked-102")).as("a replayed message is a duplicate for the listener").isEqualTo(3);
        assertThat(LedgerRun.totals(db.dataSource(), "checked")).isEqualTo(new LedgerRun.Totals(3, 3, 12));
        assertEverythingAcknowledged("ledger-checked", CHECKED);

        // Every delivery counted once by its outcome, tagged with the listener's consumer name.
        MeterRegistry meters = app.getBean(MeterRegistry.class);
        assertThat(deliveries(meters, "processed")).as("q-1 and q-3").isEqualTo(2);
        assertThat(deliveries(meters, "failed")).as("q-2's first two attempts").isEqualTo(2);
        assertThat(deliveries(meters, "quarantined")).as("q-2's third").isEqualTo(1);
        assertThat(deliveries(meters, "duplicate")).as("q-1 again, and q-2 after its replay").isEqualTo(2);
    }

    private static double deliveries(MeterRegistry meters, String outcome) {
        Counter counter = meters.find(MicrometerListenerMeters.DELIVERIES).tag("consumer", "ledger-checked").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    /** Stops the listener's container: a delivery it had not acknowledged would go back to the queue. */
    private static void assertEverythingAcknowledged(String listener, String queue) throws Exception {
        app.getBean(RabbitListenerEndpointRegistry.class).getListenerContainer(listener).stop();
        Thread.sleep(500);
        assertThat(channel.messageCount(queue)).as("deliveries left unacknowledged").isZero();
    }

    @Test
    void aManualAcknowledgementTakesEffectAfterTheCommitAndDuplicatesAreAcknowledged() throws Exception {
        for (int n = 1; n <= 20; n++) {
            publish(MANUAL, "m-" + n, n + ":" + n);
        }
        for (int n = 1; n <= 5; n++) {
            publish(MANUAL, "m-" + n, n + ":" + n);
        }

        await("every message is processed", () -> rows("manual") == 20 && channel.messageCount(MANUAL) == 0);
        Thread.sleep(300);
        assertEverythingAcknowledged("ledger-manual", MANUAL);

        assertThat(LedgerRun.totals(db.dataSource(), "manual")).isEqualTo(new LedgerRun.Totals(20, 20, 210));
        for (int n = 1; n <= 20; n++) {
            assertThat(calls("manual-" + n)).as("message %d", n).isEqualTo(1);
        }
    }

    private static void publish(String queue, String id, String body) throws Exception {
        channel.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId(id).build(), body.getBytes(StandardCharsets.UTF_8));
    }

    private static int calls(String key) {
        AtomicInteger calls = RabbitCheckedListeners.CALLS.get(key);
        return calls == null ? 0 : calls.get();
    }

    private static long rows(String listener) throws Exception {
        return LedgerRun.totals(db.dataSource(), listener).rows();
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!condition.call()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within 60 s: " + what);
            }
            Thread.sleep(50);
        }
    }
}
