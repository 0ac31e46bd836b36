package dev.idem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.MessageHandler;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxRelay;
import dev.idem.inbox.QuarantineError;
import dev.idem.inbox.QuarantinedMessage;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The idempotent Kafka consumer and the outbox publisher against a real broker and a real database.
 * A backend's test is a tiny subclass naming its database. Each test has its own database, topics and
 * groups, and a {@code ledger} table <b>without</b> a unique constraint: a second effect of a message
 * would be a second row. The {@link Probe} wraps the real Kafka consumer to kill the "process" at
 * exact points. The timeout only guards against a hang; nothing here asserts a duration.
 */
@ExtendWith(RealKafka.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
abstract class KafkaConsumerContract {
    protected static final String CONSUMER = "ledger";
    private static final Duration AWAIT = Duration.ofSeconds(60);

    protected TestDatabase db;
    protected Inbox inbox;
    protected Admin admin;
    private String unique;
    private final AtomicInteger names = new AtomicInteger();
    private int maxPollRecords = 500;
    private final List<IdempotentKafkaConsumer<?, ?>> consumers = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    protected abstract Backend backend();

    @BeforeEach
    void setUp(TestInfo info) throws SQLException {
        db = backend().open();
        inbox = Inbox.builder(db.dataSource()).maxAttempts(3).quarantineError(QuarantineError.CLASS_AND_MESSAGE).build();
        inbox.migrate();
        execute("CREATE TABLE ledger (message_id TEXT NOT NULL, amount BIGINT NOT NULL)");
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, RealKafka.bootstrapServers()));
        unique = backend().name().toLowerCase(Locale.ROOT) + "-" + info.getTestMethod().orElseThrow().getName() + "-"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(IdempotentKafkaConsumer::close);
        threads.shutdownNow();
        admin.close(Duration.ofSeconds(10));
        db.close();
    }

    // ---- the tests ----------------------------------------------------------------------------------

    @Test
    @DisplayName("10,000 messages, 500 of them sent twice by the producer, the consumer killed 5 times between the database "
            + "commit and the offset commit: the ledger holds each message's amount exactly once, nothing lost")
    void tenThousandMessagesWithForcedRedelivery() throws Exception {
        int n = 10_000;
        String topic = topic(2);
        long expectedSum = 0;
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < n; i++) {
                send(producer, topic, null, "m-" + i, amount(i));
                expectedSum += amount(i);
            }
            for (int i = 0; i < n; i += 20) {
                send(producer, topic, null, "m-" + i, amount(i));  // a producer retry: the same message once more
            }
            producer.flush();
        }
        long records = n + n / 20;
        assertThat(endOffsets(topic)).isEqualTo(records);

        String group = group();
        Counting counts = new Counting();
        int kills = 0;
        for (int life = 0; life < 5; life++) {
            Probe probe = new Probe();
            probe.crashAtCommit = 2 + life % 3;  // dies after the 2nd to 4th poll's database commit
            long committedBefore = committed(group);
            int deliveredBefore = counts.processed.get() + counts.duplicates.get();
            Throwable death = runUntilDeath(ledgerConsumer(group, topic, probe, counts, b -> b));
            assertThat(death).isInstanceOf(Probe.Crash.class);
            kills++;
            long delivered = counts.processed.get() + counts.duplicates.get() - deliveredBefore;
            assertThat(committed(group) - committedBefore)
                    .as("offsets this life committed to Kafka: its last batch is in the database, but its offsets are not")
                    .isPositive().isLessThan(delivered);
        }
        IdempotentKafkaConsumer<String, String> last = ledgerConsumer(group, topic, new Probe(), counts, b -> b);
        runInBackground(last);
        await("the group's committed offsets reach the end of the topic", () -> committed(group) == records);
        last.close();

        assertThat(kills).isEqualTo(5);
        assertThat(count("SELECT count(*) FROM ledger")).as("ledger rows").isEqualTo(n);
        assertThat(count("SELECT count(DISTINCT message_id) FROM ledger")).as("distinct messages in the ledger").isEqualTo(n);
        assertThat(count("SELECT sum(amount) FROM ledger")).as("ledger total").isEqualTo(expectedSum);
        assertThat(counts.processed.get()).isEqualTo(n);
        assertThat(counts.duplicates.get()).as("the producer's 500 repeats plus at least one redelivered record per kill")
                .isGreaterThanOrEqualTo(n / 20 + kills);
        assertThat(counts.processed.get() + counts.duplicates.get()).as("every delivery was either processed or skipped")
                .isGreaterThanOrEqualTo((int) records);
    }

    @Test
    @DisplayName("a message repeated inside one poll is handled once; the repeats answer duplicate")
    void duplicateInsideOnePoll() throws Exception {
        String topic = topic(1);
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < 10; i++) {
                int copies = i == 3 ? 2 : i == 7 ? 3 : 1;
                for (int c = 0; c < copies; c++) {
                    send(producer, topic, null, "d-" + i, amount(i));
                }
            }
            producer.flush();
        }
        String group = group();
        Probe probe = new Probe();
        Counting counts = new Counting();
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        IdempotentKafkaConsumer<String, String> consumer = ledgerConsumer(group, topic, probe, counts, b -> b.handler((c, r) -> {
            runs.computeIfAbsent(id(r), k -> new AtomicInteger()).incrementAndGet();
            insertLedger(c, id(r), Long.parseLong(r.value()));
        }));
        Future<?> running = runInBackground(consumer);
        await("all 13 records are committed", () -> committed(group) == 13);
        consumer.close();
        running.get(30, TimeUnit.SECONDS);  // close() woke the poll and the loop ended without an exception
        assertThat(consumer.failure()).isEmpty();

        List<String> pollWithRepeats = probe.polls.stream().filter(p -> p.contains("d-3")).findFirst().orElseThrow();
        assertThat(pollWithRepeats).as("precondition: the repeats arrived in one poll")
                .filteredOn("d-3"::equals).hasSize(2);
        assertThat(pollWithRepeats).filteredOn("d-7"::equals).hasSize(3);
        assertThat(runs).hasSize(10).allSatisfy((id, n) -> assertThat(n.get()).as("handler runs of " + id).isEqualTo(1));
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(10);
        assertThat(counts.processed.get()).isEqualTo(10);
        assertThat(counts.duplicateIds).containsExactlyInAnyOrder("d-3", "d-7", "d-7");
    }

    @Test
    @DisplayName("the same message ids on two partitions, consumed at once by two instances of one group: each id processed once")
    void sameIdFromTwoConsumersAtOnce() throws Exception {
        int n = 1000;
        String topic = topic(2);
        String group = group();
        Counting a = new Counting();
        Counting b = new Counting();
        runInBackground(ledgerConsumer(group, topic, new Probe(), a, x -> x));
        runInBackground(ledgerConsumer(group, topic, new Probe(), b, x -> x));
        await("each instance has one of the two partitions", () -> a.assignment.size() == 1 && b.assignment.size() == 1);

        long expectedSum = 0;
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < n; i++) {
                send(producer, topic, 0, "s-" + i, amount(i));
                send(producer, topic, 1, "s-" + i, amount(i));
                expectedSum += amount(i);
            }
            producer.flush();
        }
        await("both partitions are committed to their end", () -> committed(group) == 2L * n);

        assertThat(a.processed.get() + a.duplicates.get()).as("records the first instance got").isEqualTo(n);
        assertThat(b.processed.get() + b.duplicates.get()).as("records the second instance got").isEqualTo(n);
        assertThat(a.processed.get() + b.processed.get()).as("processed across both").isEqualTo(n);
        assertThat(a.duplicates.get() + b.duplicates.get()).as("skipped across both").isEqualTo(n);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(n);
        assertThat(count("SELECT count(DISTINCT message_id) FROM ledger")).isEqualTo(n);
        assertThat(count("SELECT sum(amount) FROM ledger")).isEqualTo(expectedSum);
    }

    @Test
    @DisplayName("a poison message is quarantined after 3 attempts while the records behind it flow; replayed after a fix, "
            + "it is processed once, and a later redelivery is a duplicate")
    void poisonMessageIsQuarantinedAndReplayedOnce() throws Exception {
        String topic = topic(1);
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < 50; i++) {
                producer.send(record(topic, null, "p-" + i, i == 20 ? "poison" : Long.toString(amount(i))));
            }
            producer.flush();
        }
        String group = group();
        Counting counts = new Counting();
        MessageHandler<ConsumerRecord<String, String>> strict = (c, r) -> {
            if (r.value().equals("poison")) {
                throw new IllegalStateException("cannot book this amount");
            }
            insertLedger(c, id(r), Long.parseLong(r.value()));
        };
        IdempotentKafkaConsumer<String, String> consumer = ledgerConsumer(group, topic, new Probe(), counts,
                b -> b.handler(strict).retryBackoff(Duration.ofMillis(50)));
        runInBackground(consumer);
        await("the partition is committed past the poison message to its end", () -> committed(group) == 50);
        consumer.close();

        assertThat(counts.failed.get()).as("failed attempts before the quarantine").isEqualTo(2);
        assertThat(counts.quarantined.get()).isEqualTo(1);
        assertThat(counts.processed.get()).isEqualTo(49);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(49);
        List<QuarantinedMessage> quarantined = inbox.listQuarantined(CONSUMER, 10);
        assertThat(quarantined).hasSize(1);
        QuarantinedMessage poison = quarantined.get(0);
        assertThat(poison.messageId()).isEqualTo("p-20");
        assertThat(poison.attempts()).isEqualTo(3);
        assertThat(new String(poison.payload(), StandardCharsets.UTF_8)).isEqualTo("poison");
        assertThat(poison.headers()).containsEntry("message-id", "p-20").containsEntry("kafka-topic", topic)
                .containsEntry("kafka-partition", "0").containsEntry("kafka-offset", "20");
        assertThat(poison.errorClass()).isEqualTo(IllegalStateException.class.getName());

        // The fix: a poison amount books 1000.
        InboxOutcome replayed = inbox.replay(CONSUMER, "p-20", (c, m) -> insertLedger(c, m.id(),
                new String(m.payload(), StandardCharsets.UTF_8).equals("poison") ? 1000 : 0));
        assertThat(replayed.status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(inbox.replay(CONSUMER, "p-20", (c, m) -> insertLedger(c, m.id(), 1000)).status())
                .as("a second replay").isEqualTo(InboxOutcome.Status.DUPLICATE);
        assertThat(inbox.listQuarantined(CONSUMER, 10)).isEmpty();

        // Everything delivered again (a new group rereads the topic), with the inbox of the same consumer name.
        String rereading = group();
        Counting again = new Counting();
        IdempotentKafkaConsumer<String, String> second = ledgerConsumer(rereading, topic, new Probe(), again, b -> b.handler(strict));
        runInBackground(second);
        await("the second group is committed to the end", () -> committed(rereading) == 50);
        second.close();
        assertThat(again.duplicates.get()).isEqualTo(50);
        assertThat(again.processed.get() + again.failed.get() + again.quarantined.get()).isZero();
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(50);
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'p-20' AND amount = 1000")).isEqualTo(1);
    }

    @Test
    @DisplayName("the operations every broker's consumer has: running while it polls, acknowledged and refused counts, "
            + "and a replay that hands the fixed handler the record rebuilt from the quarantine, once")
    void operationsAsEveryBrokersConsumer() throws Exception {
        String topic = topic(1);
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < 10; i++) {
                producer.send(record(topic, null, "o-" + i, i == 4 ? "poison" : Long.toString(amount(i))));
            }
            producer.send(record(topic, null, "x".repeat(300), "7"));  // an id the inbox refuses: counted under its coordinates
            producer.flush();
        }
        String group = group();
        Counting counts = new Counting();
        Map<String, Object> config = consumerConfig(group);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(inbox)
                .consumerConfig(config)
                .topics(topic)
                .consumerName(CONSUMER)
                .pollTimeout(Duration.ofMillis(100))
                .retryBackoff(Duration.ofMillis(50))
                .listener(counts)
                .handler((c, r) -> {
                    if (r.value().equals("poison")) {
                        throw new IllegalStateException("cannot book this amount");
                    }
                    insertLedger(c, id(r), Long.parseLong(r.value()));
                })
                .build();
        consumers.add(consumer);
        assertThat(consumer.isRunning()).as("before start").isFalse();
        assertThat(consumer.start()).isSameAs(consumer);
        await("the partition is committed past both quarantined records to its end", () -> committed(group) == 11);

        assertThat(consumer.isRunning()).isTrue();
        assertThat(consumer.acknowledged()).as("9 processed and 2 quarantined records, each acknowledged once").isEqualTo(11);
        assertThat(consumer.refused()).as("the 3 deliveries of the record without a usable id").isEqualTo(3);
        assertThatThrownBy(consumer::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
        consumer.close();
        assertThat(consumer.isRunning()).isFalse();
        assertThat(consumer.failure()).isEmpty();
        assertThat(inbox.listQuarantined(CONSUMER, 10)).extracting(QuarantinedMessage::messageId)
                .containsExactlyInAnyOrder("o-4", topic + "-0-10");

        List<ConsumerRecord<String, String>> replayed = new ArrayList<>();
        MessageHandler<ConsumerRecord<String, String>> fixed = (c, r) -> {
            replayed.add(r);
            insertLedger(c, id(r), r.value().equals("poison") ? 1000 : Long.parseLong(r.value()));
        };
        assertThat(consumer.replay("o-4", fixed).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
        assertThat(consumer.replay("o-4", fixed).status()).as("a second replay").isEqualTo(InboxOutcome.Status.DUPLICATE);
        assertThat(replayed).singleElement().satisfies(r -> {
            assertThat(r.topic()).isEqualTo(topic);
            assertThat(r.partition()).isZero();
            assertThat(r.offset()).isEqualTo(4);
            assertThat(r.key()).isEqualTo("o-4");
            assertThat(r.value()).isEqualTo("poison");
            assertThat(header(r, KafkaHeaders.MESSAGE_ID)).isEqualTo("o-4");
        });
        assertThat(count("SELECT count(*) FROM ledger WHERE message_id = 'o-4' AND amount = 1000")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(10);
        assertThat(inbox.listQuarantined(CONSUMER, 10)).extracting(QuarantinedMessage::messageId).containsExactly(topic + "-0-10");
    }

    @Test
    @DisplayName("offsets in the database: killed after a commit 3 times, each restart seeks to the stored offsets: "
            + "no record delivered twice, none lost, and no offset ever committed to Kafka")
    void offsetsInDatabase() throws Exception {
        KafkaOffsetStore store = KafkaOffsetStore.builder(db.dataSource()).build();
        store.migrate();
        maxPollRecords = 100;  // so that each life's few polls leave records for the next
        int n = 3000;
        String topic = topic(2);
        long expectedSum = 0;
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < n; i++) {
                send(producer, topic, null, "o-" + i, amount(i));
                expectedSum += amount(i);
            }
            producer.flush();
        }
        String group = group();
        Counting counts = new Counting();
        List<Probe> probes = new ArrayList<>();
        List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        List<Long> storedAtDeath = new ArrayList<>();
        for (int life = 0; life < 3; life++) {
            Probe probe = new Probe();
            probe.crashAfterBatches = 2 + life;
            probes.add(probe);
            Throwable death = runUntilDeath(ledgerConsumer(group, topic, probe, counts, b -> b.offsetsInDatabase(store)));
            assertThat(death).isInstanceOf(Probe.Crash.class);
            storedAtDeath.add(sum(store.read(group, partitions)));
        }
        Probe lastProbe = new Probe();
        probes.add(lastProbe);
        IdempotentKafkaConsumer<String, String> last = ledgerConsumer(group, topic, lastProbe, counts, b -> b.offsetsInDatabase(store));
        assertThat(last.offsetsInDatabase()).isTrue();
        runInBackground(last);
        await("the stored offsets reach the end of the topic", () -> sum(store.read(group, partitions)) == n);
        last.close();

        assertThat(storedAtDeath).as("each life moved the stored offsets on").isSorted().doesNotHaveDuplicates();
        assertThat(storedAtDeath.get(0)).isPositive();
        assertThat(counts.duplicates.get()).as("records delivered again after a restart").isZero();
        assertThat(counts.processed.get()).isEqualTo(n);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(n);
        assertThat(count("SELECT count(DISTINCT message_id) FROM ledger")).isEqualTo(n);
        assertThat(count("SELECT sum(amount) FROM ledger")).isEqualTo(expectedSum);
        assertThat(probes).allSatisfy(p -> assertThat(p.commitCalls.get()).as("offset commits to Kafka").isZero());
        assertThat(counts.kafkaCommits.get()).isZero();
        assertThat(counts.databaseCommits.get()).isPositive();
        Map<TopicPartition, OffsetAndMetadata> inKafka = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        assertThat(inKafka.values().stream().filter(o -> o != null).toList()).as("offsets the group has in Kafka").isEmpty();
        assertThat(store.read(group, partitions)).isEqualTo(endOffsetsByPartition(topic));
    }

    @Test
    @DisplayName("offsets whose commit failed are committed when the partitions are revoked: the next owner gets nothing twice")
    void pendingOffsetsAreCommittedOnRevocation() throws Exception {
        int n = 200;
        String topic = topic(2);
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < n; i++) {
                send(producer, topic, i % 2, "r-" + i, amount(i));
            }
            producer.flush();
        }
        String group = group();
        Probe failing = new Probe();
        failing.failCommitsOutsideRebalance = true;
        Counting first = new Counting();
        runInBackground(ledgerConsumer(group, topic, failing, first, b -> b));
        await("the first instance processed everything", () -> first.processed.get() == n);
        assertThat(committed(group)).as("precondition: every commit of the first instance failed so far").isZero();

        Counting second = new Counting();
        runInBackground(ledgerConsumer(group, topic, new Probe(), second, b -> b));
        await("the partitions are shared", () -> first.assignment.size() == 1 && second.assignment.size() == 1);
        await("the group's offsets reach the end", () -> committed(group) == n);

        assertThat(first.kafkaCommits.get()).as("commits the first instance made on revocation").isPositive();
        assertThat(second.processed.get() + second.duplicates.get()).as("records the new owner got again").isZero();
        assertThat(first.duplicates.get()).isZero();
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(n);
    }

    @Test
    @DisplayName("outbox → relay on the idempotent producer → Kafka → idempotent consumer: per-aggregate order kept; "
            + "a relay that dies between publishing and marking sent republishes with the same message id, which is skipped")
    void outboxRelayToIdempotentConsumer() throws Exception {
        Outbox outbox = Outbox.builder(db.dataSource()).build();
        outbox.migrate();
        execute("CREATE TABLE applied (aggregate_id TEXT NOT NULL, sequence BIGINT NOT NULL, message_id TEXT NOT NULL)");
        int aggregates = 20;
        int perAggregate = 10;
        for (int seq = 1; seq <= perAggregate; seq++) {
            for (int a = 0; a < aggregates; a++) {
                try (Connection c = db.dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    outbox.append(c, "payment", "pay-" + a, "PaymentUpdated", ("{\"step\":" + seq + "}").getBytes(StandardCharsets.UTF_8),
                            Map.of("content-type", "application/json"));
                    c.commit();
                    c.setAutoCommit(true);
                }
            }
        }
        String topic = topic(3);
        AtomicReference<OutboxMessage> crashed = new AtomicReference<>();
        try (KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                RealKafka.bootstrapServers())).topic(topic).sendTimeout(Duration.ofSeconds(30)).build()) {
            AtomicInteger published = new AtomicInteger();
            OutboxRelay dying = OutboxRelay.builder(outbox, m -> {
                publisher.publish(m);
                if (published.incrementAndGet() == 37) {
                    crashed.set(m);
                    throw new Probe.Crash("after the broker acknowledged, before the event was marked sent");
                }
            }).build();
            assertThatThrownBy(dying::runOnce).isInstanceOf(Probe.Crash.class);
            OutboxRelay survivor = OutboxRelay.builder(outbox, publisher).build();
            while (outbox.pendingCount() > 0) {
                survivor.runOnce();
            }
        }
        assertThat(endOffsets(topic)).as("records on the topic: every event once, the crashed one twice").isEqualTo(aggregates * perAggregate + 1);

        String group = group();
        Counting counts = new Counting();
        Map<String, List<Long>> order = new ConcurrentHashMap<>();
        IdempotentKafkaConsumer<String, String> consumer = ledgerConsumer(group, topic, new Probe(), counts, b -> b.handler((c, r) -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO applied (aggregate_id, sequence, message_id) VALUES (?, ?, ?)")) {
                ps.setString(1, header(r, KafkaHeaders.AGGREGATE_ID));
                ps.setLong(2, Long.parseLong(header(r, KafkaHeaders.SEQUENCE)));
                ps.setString(3, id(r));
                ps.executeUpdate();
            }
        }));
        runInBackground(consumer);
        await("the consumer is committed to the end", () -> committed(group) == aggregates * perAggregate + 1);
        consumer.close();

        for (ConsumerRecord<?, ?> r : counts.processedRecords) {
            order.computeIfAbsent(header(r, KafkaHeaders.AGGREGATE_ID), k -> new CopyOnWriteArrayList<>())
                    .add(Long.parseLong(header(r, KafkaHeaders.SEQUENCE)));
        }
        List<Long> oneToTen = LongStream.rangeClosed(1, perAggregate).boxed().toList();
        assertThat(order).hasSize(aggregates).allSatisfy((aggregate, sequences) ->
                assertThat(sequences).as("sequences of " + aggregate + " in the order applied").isEqualTo(oneToTen));
        assertThat(counts.duplicateIds).containsExactly(crashed.get().messageId().toString());
        assertThat(count("SELECT count(*) FROM applied")).isEqualTo(aggregates * perAggregate);
        assertThat(count("SELECT count(DISTINCT message_id) FROM applied")).isEqualTo(aggregates * perAggregate);

        ConsumerRecord<?, ?> sample = counts.processedRecords.get(0);
        assertThat(header(sample, KafkaHeaders.EVENT_TYPE)).isEqualTo("PaymentUpdated");
        assertThat(header(sample, KafkaHeaders.AGGREGATE_TYPE)).isEqualTo("payment");
        assertThat(header(sample, "content-type")).isEqualTo("application/json");
        assertThat(sample.key()).isEqualTo(header(sample, KafkaHeaders.AGGREGATE_ID));
        Map<String, Set<Integer>> partitionsOfAggregate = counts.processedRecords.stream().collect(Collectors.groupingBy(
                r -> header(r, KafkaHeaders.AGGREGATE_ID), Collectors.mapping(ConsumerRecord::partition, Collectors.toSet())));
        assertThat(partitionsOfAggregate).allSatisfy((aggregate, ps) -> assertThat(ps).as("partitions of " + aggregate).hasSize(1));
    }

    @Test
    @DisplayName("records that cannot be read (a value the deserializer refuses, an invalid message id) are quarantined "
            + "after 3 deliveries while the records behind them flow")
    void unreadableRecordsAreQuarantined() throws Exception {
        String topic = topic(1);
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < 30; i++) {
                if (i == 10) {
                    producer.send(record(topic, null, "u-10", "garbage"));
                } else if (i == 20) {
                    producer.send(record(topic, null, "bad\u0001id", "5"));
                } else {
                    send(producer, topic, null, "u-" + i, amount(i));
                }
            }
            producer.flush();
        }
        String group = group();
        Counting counts = new Counting();
        Deserializer<Long> amounts = (t, data) -> {
            try {
                return Long.parseLong(new String(data, StandardCharsets.UTF_8));
            } catch (NumberFormatException e) {
                throw new SerializationException("not an amount");
            }
        };
        Map<String, Object> config = consumerConfig(group);
        IdempotentKafkaConsumer<String, Long> consumer = IdempotentKafkaConsumer.<String, Long>builder(inbox)
                .consumer(() -> new KafkaConsumer<>(config, new StringDeserializer(), amounts))
                .topics(topic)
                .consumerName(CONSUMER)
                .pollTimeout(Duration.ofMillis(100))
                .retryBackoff(Duration.ofMillis(50))
                .listener(counts)
                .handler((c, r) -> insertLedger(c, id(r), r.value()))
                .build();
        consumers.add(consumer);
        runInBackground(consumer);
        await("the partition is committed to its end", () -> committed(group) == 30);
        consumer.close();

        assertThat(counts.quarantined.get()).isEqualTo(2);
        assertThat(counts.failed.get()).as("failed attempts before the quarantines").isEqualTo(4);
        assertThat(counts.processed.get()).isEqualTo(28);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(28);
        Map<String, QuarantinedMessage> quarantined = inbox.listQuarantined(CONSUMER, 10).stream()
                .collect(Collectors.toMap(QuarantinedMessage::messageId, q -> q));
        assertThat(quarantined).containsOnlyKeys("u-10", topic + "-0-20");
        QuarantinedMessage garbage = quarantined.get("u-10");
        assertThat(garbage.errorClass()).isEqualTo(RecordDeserializationException.class.getName());
        assertThat(new String(garbage.payload(), StandardCharsets.UTF_8)).isEqualTo("garbage");
        assertThat(garbage.attempts()).isEqualTo(3);
        QuarantinedMessage badId = quarantined.get(topic + "-0-20");
        assertThat(badId.errorClass()).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(badId.headers()).containsEntry("kafka-offset", "20");
        assertThat(new String(badId.payload(), StandardCharsets.UTF_8)).isEqualTo("5");
    }

    /**
     * Two records whose {@code message-id} headers are different byte sequences that are not UTF-8
     * ({@code C3 28} and {@code FF 28}; a lenient decoder reads both as {@code "\uFFFD("}): neither is
     * taken for the other. Each is refused as an invalid id, counted under its own coordinates and
     * quarantined after 3 deliveries, with an error naming the rule and never the bytes; the records
     * around them flow.
     */
    @Test
    @DisplayName("message-id headers that are not valid UTF-8 are refused under their own coordinates, never merged into one id")
    void invalidUtf8MessageIdsAreRefusedNotMerged() throws Exception {
        String topic = topic(1);
        try (Producer<String, String> producer = producer()) {
            send(producer, topic, null, "v-0", 1);
            for (byte[] invalid : List.of(new byte[] {(byte) 0xC3, 0x28}, new byte[] {(byte) 0xFF, 0x28})) {
                RecordHeaders headers = new RecordHeaders();
                headers.add(KafkaHeaders.MESSAGE_ID, invalid);
                producer.send(new ProducerRecord<>(topic, null, "k", "7", headers));
            }
            send(producer, topic, null, "v-3", 3);
            producer.flush();
        }
        String group = group();
        Counting counts = new Counting();
        Map<String, Object> config = consumerConfig(group);
        IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(inbox)
                .consumer(() -> new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer()))
                .topics(topic)
                .consumerName(CONSUMER)
                .pollTimeout(Duration.ofMillis(100))
                .retryBackoff(Duration.ofMillis(50))
                .listener(counts)
                .handler((c, r) -> insertLedger(c, id(r), Long.parseLong(r.value())))
                .build();
        consumers.add(consumer);
        runInBackground(consumer);
        await("the partition is committed to its end", () -> committed(group) == 4);
        consumer.close();

        assertThat(counts.duplicateIds).as("duplicates").isEmpty();
        assertThat(counts.processed.get()).isEqualTo(2);
        assertThat(counts.quarantined.get()).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(2);
        Map<String, QuarantinedMessage> quarantined = inbox.listQuarantined(CONSUMER, 10).stream()
                .collect(Collectors.toMap(QuarantinedMessage::messageId, q -> q));
        assertThat(quarantined).containsOnlyKeys(topic + "-0-1", topic + "-0-2");
        assertThat(quarantined.values()).allSatisfy(q -> {
            assertThat(q.errorClass()).isEqualTo(IllegalArgumentException.class.getName());
            assertThat(q.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("message-id header is not valid UTF-8")
                    .doesNotContain("\uFFFD"));
            assertThat(q.attempts()).isEqualTo(3);
        });
    }

    @Test
    @DisplayName("a database commit that fails: the poll's offsets are not committed, its records come again and are processed once")
    void databaseFailureAtCommit() throws Exception {
        String topic = topic(1);
        try (Producer<String, String> producer = producer()) {
            for (int i = 0; i < 300; i++) {
                send(producer, topic, null, "f-" + i, amount(i));
            }
            producer.flush();
        }
        AtomicInteger failingCommits = new AtomicInteger(2);
        DataSource flaky = FlakyDataSource.failingCommits(db.dataSource(), failingCommits);
        String group = group();
        Counting counts = new Counting();
        IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(Inbox.builder(flaky).maxAttempts(3).build())
                .consumer(() -> new KafkaConsumer<>(consumerConfig(group), new StringDeserializer(), new StringDeserializer()))
                .topics(topic)
                .consumerName(CONSUMER)
                .pollTimeout(Duration.ofMillis(100))
                .retryBackoff(Duration.ofMillis(50))
                .listener(counts)
                .handler((c, r) -> insertLedger(c, id(r), Long.parseLong(r.value())))
                .build();
        consumers.add(consumer);
        runInBackground(consumer);
        await("the partition is committed to its end", () -> committed(group) == 300);
        consumer.close();

        assertThat(failingCommits.get()).as("commits left to fail").isNotPositive();
        assertThat(counts.processed.get()).isEqualTo(300);
        assertThat(counts.duplicates.get()).as("redelivered records found already processed: none, their work was rolled back").isZero();
        assertThat(counts.failed.get()).as("attempts counted against the records: none, the database failed, not them").isZero();
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(300);
        assertThat(count("SELECT count(DISTINCT message_id) FROM ledger")).isEqualTo(300);
    }

    // ---- helpers -----------------------------------------------------------------------------------------

    protected IdempotentKafkaConsumer<String, String> ledgerConsumer(String group, String topic, Probe probe, ConsumerListener<ConsumerRecord<?, ?>> listener,
            UnaryOperator<IdempotentKafkaConsumer.Builder<String, String>> settings) {
        Map<String, Object> config = consumerConfig(group);
        IdempotentKafkaConsumer.Builder<String, String> builder = IdempotentKafkaConsumer.<String, String>builder(inbox)
                .consumer(() -> probe.wrap(new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())))
                .topics(topic)
                .consumerName(CONSUMER)
                .pollTimeout(Duration.ofMillis(100))
                .listener(listener)
                .handler((c, r) -> insertLedger(c, id(r), Long.parseLong(r.value())));
        IdempotentKafkaConsumer<String, String> consumer = settings.apply(builder).build();
        consumers.add(consumer);
        return consumer;
    }

    protected Map<String, Object> consumerConfig(String group) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, RealKafka.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }

    protected Future<?> runInBackground(IdempotentKafkaConsumer<?, ?> consumer) {
        return threads.submit(consumer);
    }

    /** Runs the consumer until its process "dies"; returns what killed it. */
    protected Throwable runUntilDeath(IdempotentKafkaConsumer<?, ?> consumer) throws Exception {
        Future<?> running = threads.submit(consumer);
        try {
            running.get(AWAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the consumer stopped without dying");
    }

    protected String topic(int partitions) throws Exception {
        String name = "t-" + unique + "-" + names.incrementAndGet();
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        // A produce that reaches the broker before it leads the new partitions fails with NOT_LEADER_OR_FOLLOWER,
        // and an idempotent producer's in-flight batches behind it can then retry out of order for minutes.
        // ListOffsets is answered by the leader only: once it answers for every partition, the topic is ready.
        await("the new topic's partitions have a leader", () -> {
            try {
                endOffsetsByPartition(name);
                return true;
            } catch (ExecutionException e) {
                return false;
            }
        });
        return name;
    }

    protected String group() {
        return "g-" + unique + "-" + names.incrementAndGet();
    }

    protected static Producer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, RealKafka.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new StringSerializer());
    }

    protected static ProducerRecord<String, String> record(String topic, Integer partition, String messageId, String value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(KafkaHeaders.MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(topic, partition, messageId, value, headers);
    }

    protected static void send(Producer<String, String> producer, String topic, Integer partition, String messageId, long amount) {
        producer.send(record(topic, partition, messageId, Long.toString(amount)));
    }

    protected static long amount(int i) {
        return i % 97 + 1;
    }

    protected static String id(ConsumerRecord<?, ?> r) throws Exception {
        return KafkaMessageIds.standard().messageId(r);
    }

    protected static String header(ConsumerRecord<?, ?> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    protected static void insertLedger(Connection c, String messageId, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger (message_id, amount) VALUES (?, ?)")) {
            ps.setString(1, messageId);
            ps.setLong(2, amount);
            ps.executeUpdate();
        }
    }

    /** The sum of the group's offsets committed in Kafka. */
    protected long committed(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        return offsets.values().stream().filter(o -> o != null).mapToLong(OffsetAndMetadata::offset).sum();
    }

    protected Map<TopicPartition, Long> endOffsetsByPartition(String topic) throws Exception {
        int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions().size();
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    protected long endOffsets(String topic) throws Exception {
        return sum(endOffsetsByPartition(topic));
    }

    protected static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    protected void execute(String statement) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }

    protected long count(String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @FunctionalInterface
    protected interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits until the condition holds; fails naming it after a minute (a hang guard, not a timing assertion). */
    protected static void await(String what, Condition condition) throws Exception {
        long deadline = System.nanoTime() + AWAIT.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited " + AWAIT.toSeconds() + " s in vain until " + what);
            }
            Thread.sleep(50);
        }
    }
}
