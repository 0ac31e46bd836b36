package dev.idem.spring.listener;

import static dev.idem.spring.listener.KafkaRecords.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.QuarantinedMessage;
import dev.idem.spring.listener.app.KafkaCheckedListeners;
import dev.idem.spring.listener.app.LedgerApplication;
import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.idem.spring.TestKafka;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * {@link RabbitListenerQuarantineTest} on the real Kafka broker (a child JVM) and PostgreSQL, in
 * process: a poison record is tried {@code idem.inbox.max-attempts} times, then quarantined and its
 * offset committed, so the records after it on its partition are processed and a restarted container
 * does not fetch it again; a replay from the quarantine runs once, and a later send of the same id is
 * a duplicate. A batch listener's poison element is quarantined while the batch's others commit.
 */
@ExtendWith(OutputCaptureExtension.class)
class KafkaListenerQuarantineTest {
    private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    private static final String TOPIC = "kafka-checked-" + SUFFIX;
    private static final String BATCH_TOPIC = "kafka-checked-batches-" + SUFFIX;
    private static final String GROUP = "kafka-" + SUFFIX;
    /** In the poison record's value: it must not show in any log line or exception message. */
    private static final String SECRET = "card-4111-" + SUFFIX;
    @RegisterExtension
    static final TestKafka KAFKA = new TestKafka();
    private static TestDatabase db;
    private static ConfigurableApplicationContext app;
    private static Admin admin;

    @BeforeAll
    static void start() {
        KafkaBroker broker = KAFKA.broker();
        broker.createTopic(TOPIC, 1);
        broker.createTopic(BATCH_TOPIC, 1);
        db = RealServices.postgres();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
        app = new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE).run(
                "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                "--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
                "--spring.kafka.consumer.auto-offset-reset=earliest",
                "--idem.inbox.max-attempts=3",
                "--idem.inbox.quarantine-error=class-and-message",
                "--ledger.kafka.checked-topic=" + TOPIC,
                "--ledger.kafka.checked-batch-topic=" + BATCH_TOPIC,
                "--ledger.kafka.group=" + GROUP,
                "--logging.level.root=WARN",
                "--logging.level.dev.idem=DEBUG");  // every line of idem's is checked for the payload
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void aPoisonRecordIsQuarantinedAfterItsAttemptsItsOffsetCommittedAndAReplayRunsOnce(CapturedOutput output) throws Exception {
        // The last is a producer's retry of the first.
        send(TOPIC, "k-1", "101:5", "k-2", "102:poison " + SECRET, "k-3", "103:7", "k-1", "101:5");

        Inbox inbox = app.getBean(Inbox.class);
        await("the poison record is quarantined", () -> inbox.quarantine().find("ledger-checked-kafka", "k-2").isPresent());
        await("the records after it are processed and every offset committed",
                () -> rows("checked-kafka") == 2 && committed(GROUP + "-checked") == 4);

        assertThat(calls("checked-kafka-102")).as("tried max-attempts times, then its offset committed").isEqualTo(3);
        assertThat(calls("checked-kafka-101")).as("the duplicate did not call the method").isEqualTo(1);
        assertThat(calls("checked-kafka-103")).isEqualTo(1);
        assertThat(inbox.quarantine().list("ledger-checked-kafka", 10)).singleElement().satisfies(q -> {
            assertThat(q.message().id()).isEqualTo("k-2");
            assertThat(q.attempts()).isEqualTo(3);
            assertThat(q.errorClass()).isEqualTo(IllegalStateException.class.getName());
            assertThat(q.errorMessage()).hasValue("cannot book this message");
            assertThat(new String(q.message().payload(), StandardCharsets.UTF_8)).isEqualTo("102:poison " + SECRET);
        });
        assertThat(output.getAll()).as("the advice says it quarantined a record")
                .contains("consumer 'ledger-checked-kafka' quarantined a message after 3 failed attempts")
                .as("no log line quotes the payload").doesNotContain(SECRET);

        restart("ledger-checked-kafka");
        assertThat(calls("checked-kafka-102")).as("a restarted container does not fetch the quarantined record").isEqualTo(3);

        // After a fix: the operator replays it, and its effect commits with its release from the quarantine.
        InboxOutcome replay = inbox.quarantine().replay("ledger-checked-kafka", "k-2", (c, message) -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (listener, number, amount) VALUES ('checked-kafka', 102, 0)")) {
                ps.executeUpdate();
            }
        });
        InboxOutcome again = inbox.quarantine().replay("ledger-checked-kafka", "k-2", (c, message) -> {
            throw new AssertionError("a second replay must not run");
        });
        send(TOPIC, "k-2", "102:poison " + SECRET);  // a late send of the poison record

        assertThat(replay.status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(again.status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
        await("the late record's offset is committed", () -> committed(GROUP + "-checked") == 5);
        assertThat(calls("checked-kafka-102")).as("a replayed message is a duplicate for the listener").isEqualTo(3);
        assertThat(inbox.quarantine().list("ledger-checked-kafka", 10)).isEmpty();
        assertThat(LedgerRun.totals(db.dataSource(), "checked-kafka")).isEqualTo(new LedgerRun.Totals(3, 3, 12));
        assertThat(output.getAll()).doesNotContain(SECRET);
    }

    @Test
    void aBatchsPoisonElementIsQuarantinedAndItsOtherElementsCommit() throws Exception {
        // Sent while the container is stopped, so that its first poll gets them as one batch.
        MessageListenerContainer container = app.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer("ledger-checked-batches");
        container.stop();
        send(BATCH_TOPIC, "b-201", "201:1", "b-202", "202:2", "b-203", "203:poison", "b-204", "204:4", "b-205", "205:5");
        container.start();

        Inbox inbox = app.getBean(Inbox.class);
        await("the batch's offsets are committed", () -> committed(GROUP + "-checked-batches") == 5);

        QuarantinedMessage quarantined = inbox.quarantine().find("ledger-checked-batches", "b-203").orElseThrow();
        assertThat(quarantined.attempts()).isEqualTo(3);
        assertThat(inbox.quarantine().list("ledger-checked-batches", 10)).hasSize(1);
        assertThat(calls("checked-batches-201")).as("in the whole batch, rolled back for its poison, then on its own").isEqualTo(2);
        assertThat(LedgerRun.totals(db.dataSource(), "checked-batches")).as("the other elements, each once")
                .isEqualTo(new LedgerRun.Totals(4, 4, 1 + 2 + 4 + 5));
        restart("ledger-checked-batches");
        assertThat(LedgerRun.totals(db.dataSource(), "checked-batches").rows()).isEqualTo(4);
    }

    /** Stops the listener's container and starts it again; returns once it has its partition back and had time to poll. */
    private static void restart(String listener) throws Exception {
        MessageListenerContainer container = app.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer(listener);
        container.stop();
        container.start();
        await("the restarted container has its partition", () -> container.getAssignedPartitions() != null
                && !container.getAssignedPartitions().isEmpty());
        Thread.sleep(1000);
    }

    private static void send(String topic, String... idsAndValues) {
        KafkaRecords.send(KAFKA.broker().bootstrapServers(), topic, idsAndValues);
    }

    private static long committed(String group) throws Exception {
        return KafkaRecords.committed(admin, group);
    }

    private static int calls(String key) {
        AtomicInteger calls = KafkaCheckedListeners.CALLS.get(key);
        return calls == null ? 0 : calls.get();
    }

    private static long rows(String listener) throws Exception {
        return LedgerRun.totals(db.dataSource(), listener).rows();
    }
}
