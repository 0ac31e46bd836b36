package dev.idem.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.QuarantinedMessage;
import dev.idem.spring.TestKafka;
import dev.idem.spring.listener.app.KafkaPoisonListeners;
import dev.idem.spring.listener.app.LedgerApplication;
import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The container's own retry limit never loses a message, on the real Kafka broker and PostgreSQL, in
 * process, with the container's defaults (spring-kafka gives up on a record after 10 deliveries): a
 * record listener and a batch listener, each with healthy messages, a poison one and a flaky one
 * (fails twice, then succeeds), with {@code idem.inbox.max-attempts} above and below that limit, and
 * with an error handler of the application's that retries twice (three deliveries, then skip).
 * Every healthy and flaky message is applied exactly once, the poison one is quarantined exactly once,
 * and every offset is committed: nothing is skipped.
 */
class KafkaListenerPoisonTest {
    @RegisterExtension
    static final TestKafka KAFKA = new TestKafka();
    private static Admin admin;
    private TestDatabase db;
    private ConfigurableApplicationContext app;
    private String suffix;

    @BeforeAll
    static void connect() {
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers()));
    }

    @AfterAll
    static void disconnect() {
        if (admin != null) {
            admin.close();
        }
    }

    @BeforeEach
    void open() {
        db = RealServices.postgres();
        KafkaPoisonListeners.CALLS.clear();
        suffix = UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void close() {
        if (app != null) {
            app.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void maxAttemptsAboveTheContainersLimit() throws Exception {
        poisonQuarantinedAndNothingSkipped(12);
    }

    @Test
    void maxAttemptsBelowTheContainersLimit() throws Exception {
        poisonQuarantinedAndNothingSkipped(3);
    }

    @Test
    void anApplicationsErrorHandlerOfTwoRetriesBelowMaxAttempts() throws Exception {
        poisonQuarantinedAndNothingSkipped(5, "--ledger.kafka.error-handler-retries=2");
    }

    @Test
    void anApplicationsErrorHandlerOfTwoRetriesAtMaxAttempts() throws Exception {
        poisonQuarantinedAndNothingSkipped(3, "--ledger.kafka.error-handler-retries=2");
    }

    private void poisonQuarantinedAndNothingSkipped(int maxAttempts, String... settings) throws Exception {
        String records = "poison-records-" + suffix;
        String batches = "poison-batches-" + suffix;
        String group = "poison-" + suffix;
        KafkaBroker broker = KAFKA.broker();
        broker.createTopic(records, 1);
        broker.createTopic(batches, 1);
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                "--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
                "--spring.kafka.consumer.auto-offset-reset=earliest",
                "--idem.inbox.max-attempts=" + maxAttempts,
                "--ledger.kafka.poison-topic=" + records,
                "--ledger.kafka.poison-batch-topic=" + batches,
                "--ledger.kafka.group=" + group,
                "--logging.level.root=WARN"));
        arguments.addAll(List.of(settings));
        app = new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE).run(arguments.toArray(String[]::new));
        // The batch listener's records are sent while its container is stopped, so that its first poll gets them as one batch.
        MessageListenerContainer batchContainer = app.getBean(KafkaListenerEndpointRegistry.class)
                .getListenerContainer("ledger-poison-batches");
        batchContainer.stop();
        KafkaRecords.send(broker.bootstrapServers(), records, "r-1", "1:10", "r-2", "2:poison", "r-3", "3:30 flaky", "r-4", "4:40",
                "r-5", "5:50");
        KafkaRecords.send(broker.bootstrapServers(), batches, "b-11", "11:1", "b-12", "12:poison", "b-13", "13:3 flaky",
                "b-14", "14:4", "b-15", "15:5", "b-16", "16:6", "b-17", "17:7");
        batchContainer.start();

        Inbox inbox = app.getBean(Inbox.class);
        await("the record listener's offsets are committed", () -> KafkaRecords.committed(admin, group + "-poison-records") == 5);
        await("the batch listener's offsets are committed", () -> KafkaRecords.committed(admin, group + "-poison-batches") == 7);

        assertThat(LedgerRun.totals(db.dataSource(), "poison-records")).as("records 1, 3, 4, 5: each applied once")
                .isEqualTo(new LedgerRun.Totals(4, 4, 10 + 30 + 40 + 50));
        assertThat(LedgerRun.totals(db.dataSource(), "poison-batches")).as("records 11, 13-17: each applied once")
                .isEqualTo(new LedgerRun.Totals(6, 6, 1 + 3 + 4 + 5 + 6 + 7));
        assertThat(inbox.quarantine().list("ledger-poison-records", 10)).as("the poison record, quarantined once")
                .singleElement().satisfies(q -> assertQuarantined(q, "r-2", maxAttempts));
        assertThat(inbox.quarantine().list("ledger-poison-batches", 10)).as("the batch's poison record, quarantined once")
                .singleElement().satisfies(q -> assertQuarantined(q, "b-12", maxAttempts));
    }

    private static void assertQuarantined(QuarantinedMessage q, String id, int maxAttempts) {
        assertThat(q.message().id()).isEqualTo(id);
        assertThat(q.attempts()).isEqualTo(maxAttempts);
    }

    /** Returns once {@code condition} holds; fails naming {@code what} after 60 s. */
    private static void await(String what, Callable<Boolean> condition) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!condition.call()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within 60 s: " + what);
            }
            Thread.sleep(100);
        }
    }
}
