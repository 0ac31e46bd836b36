package dev.idem.spring.listener;

import static dev.idem.spring.listener.KafkaRecords.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import dev.idem.spring.listener.app.KafkaAmbiguousCommitListener;
import dev.idem.spring.listener.app.LedgerApplication;
import dev.idem.spring.listener.app.LostCommitAnswers;
import dev.idem.testing.KafkaBroker;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import dev.idem.spring.internal.listener.MicrometerListenerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.idem.spring.TestKafka;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A COMMIT that fails ambiguously, in process on the real Kafka broker (a child JVM) and PostgreSQL,
 * with {@code idem.inbox.max-attempts=1}: a message's transaction commits, but the client sees a
 * connection error ({@link LostCommitAnswers}). The advice counts a failure and rethrows; the inbox
 * holds the message as processed, so it counts nothing and quarantines nothing, and the container's
 * redelivery is a duplicate, acknowledged without running the method again.
 */
class KafkaListenerAmbiguousCommitTest {
    @RegisterExtension
    static final TestKafka KAFKA = new TestKafka();


    @Test
    void aCommitWhoseAnswerIsLostRunsOnceAndIsNotQuarantined() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "kafka-ambiguous-" + suffix;
        String group = "kafka-" + suffix;
        KafkaBroker started = KAFKA.broker();
        try (TestDatabase db = RealServices.postgres();
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, started.bootstrapServers()))) {
            started.createTopic(topic, 1);
            KafkaRecords.send(started.bootstrapServers(), topic, "a-301", "301:3", "a-302", "302:4", "a-303", "303:5");
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE)
                    .run("--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                            "--spring.kafka.bootstrap-servers=" + started.bootstrapServers(),
                            "--spring.kafka.consumer.auto-offset-reset=earliest",
                            "--idem.inbox.max-attempts=1",
                            "--ledger.kafka.ambiguous-topic=" + topic,
                            "--ledger.kafka.lost-answer=302",
                            "--ledger.kafka.group=" + group,
                            "--logging.level.root=ERROR")) {
                await("every offset is committed", () -> KafkaRecords.committed(admin, group + "-ambiguous") == 3);

                Inbox inbox = app.getBean(Inbox.class);
                assertThat(LostCommitAnswers.LOST).as("the COMMIT of 302 failed for the client once").hasValue(1);
                assertThat(KafkaAmbiguousCommitListener.CALLS.get("302")).as("its redelivery was a duplicate").hasValue(1);
                assertThat(LedgerRun.totals(db.dataSource(), "ambiguous")).isEqualTo(new LedgerRun.Totals(3, 3, 12));
                assertThat(inbox.quarantine().find("ledger-ambiguous", "a-302")).isEmpty();
                assertThat(failureRows(db, inbox)).as("no failed attempt counted, no payload kept").isZero();
                MeterRegistry meters = app.getBean(MeterRegistry.class);
                assertThat(meters.find(MicrometerListenerMeters.DELIVERIES).tag("consumer", "ledger-ambiguous")
                        .tag("outcome", "quarantined").counter()).as("the lost answer is not counted as a quarantine").isNull();
                assertThat(meters.get(MicrometerListenerMeters.DELIVERIES).tag("consumer", "ledger-ambiguous")
                        .tag("outcome", "duplicate").counter().count()).as("it settled as a duplicate").isGreaterThanOrEqualTo(1);
            }
        }
    }

    private static long failureRows(TestDatabase db, Inbox inbox) throws Exception {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + inbox.quarantineTableName() + " WHERE consumer = ?")) {
            ps.setString(1, "ledger-ambiguous");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
