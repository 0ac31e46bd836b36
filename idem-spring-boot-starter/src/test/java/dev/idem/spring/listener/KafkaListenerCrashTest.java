package dev.idem.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.TestKafka;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.spring.listener.app.KafkaManualAckListener;
import dev.idem.spring.listener.app.LedgerApplication;
import java.time.Instant;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * 10,000 messages to a {@code @KafkaListener} record listener and 10,000 to a batch listener, each
 * with two consumers per process, in two application processes of one consumer group, on the real
 * broker (a child JVM) and PostgreSQL. Some messages are sent twice under the same id (a producer
 * retry). The listener halts its process right after the database commit of chosen messages, before
 * the offset commit; the test starts a new process each time, the group rebalances, and the
 * uncommitted offsets are delivered again. The ledger (one row per effect, no unique constraint)
 * must end exact: as many rows as messages, each message once, the sum of their amounts.
 */
class KafkaListenerCrashTest {
    /** To each listener: the record listener commits one transaction per message, the batch listener one per poll. */
    private static final int MESSAGES = 10_000;
    /** Every 20th message is sent twice, up to this many. */
    private static final int PRODUCER_DUPLICATES = 500;
    @RegisterExtension
    static final TestKafka KAFKA = new TestKafka();

    @TempDir
    Path dir;


    @Test
    void theLedgerIsExactAfterHaltsBetweenTheCommitAndTheOffsetCommit() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "ledger-records-" + suffix;
        String batchTopic = "ledger-batches-" + suffix;
        KAFKA.broker().createTopic(topic, 4);
        KAFKA.broker().createTopic(batchTopic, 4);
        long recordSum = send(topic, MESSAGES);
        long batchSum = send(batchTopic, MESSAGES);

        try (TestDatabase db = RealServices.postgres()) {
            List<String> arguments = List.of(
                    "--spring.datasource.url=" + LedgerRun.unsyncedUrl(db),
                    "--idem.durability-check=warn",  // the unsynced URL is deliberate: the processes die, the database does not
                    "--spring.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
                    "--spring.kafka.consumer.auto-offset-reset=earliest",
                    "--spring.kafka.consumer.max-poll-records=200",
                    // A halted process's consumers stop heartbeating; their partitions wait for the group to
                    // expire them (45 s by default), at every halt. 10 s still keeps a busy but live JVM in.
                    "--spring.kafka.consumer.properties.session.timeout.ms=10000",
                    "--spring.kafka.consumer.properties.heartbeat.interval.ms=3000",
                    "--ledger.kafka.topic=" + topic,
                    "--ledger.kafka.batch-topic=" + batchTopic,
                    "--ledger.kafka.group=ledger-" + suffix,
                    "--ledger.halt-at=400,6400",
                    "--ledger.markers=" + LedgerRun.markers(dir));

            int halts = LedgerRun.untilComplete(dir, arguments, 2, db.dataSource(),
                    Map.of("records", MESSAGES, "batches", MESSAGES), Duration.ofSeconds(240));

            // 400 and 6400 each halt a process after the record listener's commit and after the batch
            // listener's: four halts, one marker each. When both listeners of one process reach their
            // halt in the same instant, one exit serves both, so the processes may have exited fewer times.
            try (var marked = Files.list(LedgerRun.markers(dir))) {
                assertThat(marked.count()).as("each chosen message halted a process after its commit, per listener").isEqualTo(4);
            }
            assertThat(halts).as("halted processes, restarted").isBetween(2, 4);
            assertThat(LedgerRun.totals(db.dataSource(), "records")).as("record listener")
                    .isEqualTo(new LedgerRun.Totals(MESSAGES, MESSAGES, recordSum));
            assertThat(LedgerRun.totals(db.dataSource(), "batches")).as("batch listener")
                    .isEqualTo(new LedgerRun.Totals(MESSAGES, MESSAGES, batchSum));
            System.out.println("[KafkaListenerCrashTest] " + MESSAGES + " + " + MESSAGES + " messages (each with up to "
                    + PRODUCER_DUPLICATES + " producer duplicates), " + halts + " halts, ledger exact");
        }
    }

    /**
     * In process, ack mode MANUAL_IMMEDIATE: the method's {@code acknowledge()} commits the offset after
     * the database commit, and the duplicates (sent twice under one id) are acknowledged by the advice
     * without calling the method: the group's committed offsets reach the end of every partition.
     */
    @Test
    void manualAcknowledgementsAndDuplicatesCommitEveryOffset() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "ledger-manual-" + suffix;
        String group = "ledger-manual-" + suffix;
        KAFKA.broker().createTopic(topic, 2);
        long sum = send(topic, 100);  // 100 messages, 5 of them twice
        try (TestDatabase db = RealServices.postgres();
             ConfigurableApplicationContext app = new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE).run(
                     "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                     "--spring.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
                     "--spring.kafka.consumer.auto-offset-reset=earliest",
                     "--spring.kafka.listener.ack-mode=manual_immediate",
                     "--ledger.kafka.manual-topic=" + topic,
                     "--ledger.kafka.group=" + group,
                     "--logging.level.root=ERROR");
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers()))) {
            Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
            while (KafkaRecords.committed(admin, group) < 105) {
                assertThat(Instant.now()).as("offsets committed: %d of 105", KafkaRecords.committed(admin, group)).isBefore(deadline);
                Thread.sleep(100);
            }

            assertThat(LedgerRun.totals(db.dataSource(), "manual-kafka")).isEqualTo(new LedgerRun.Totals(100, 100, sum));
            assertThat(KafkaManualAckListener.CALLS).hasSize(100);
            assertThat(KafkaManualAckListener.CALLS.values()).allSatisfy(calls -> assertThat(calls.get()).isEqualTo(1));
        }
    }

    /** Sends the messages {@code <n>:<amount>} with their ids, and again the first few hundred (a producer's retry). */
    private static long send(String topic, int messages) {
        Map<String, Object> settings = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5);
        long sum = 0;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer())) {
            for (int n = 1; n <= messages; n++) {
                long amount = n % 97 + 1;
                sum += amount;
                producer.send(record(topic, n, amount));
                if (n % 20 == 0 && n / 20 <= PRODUCER_DUPLICATES) {
                    producer.send(record(topic, n, amount));  // the same message again, as a retried send would
                }
            }
            producer.flush();
        }
        return sum;
    }

    private static ProducerRecord<String, String> record(String topic, int n, long amount) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, "key-" + (n % 50), n + ":" + amount);
        record.headers().add("message-id", ("payment-" + n).getBytes(StandardCharsets.UTF_8));
        return record;
    }
}
