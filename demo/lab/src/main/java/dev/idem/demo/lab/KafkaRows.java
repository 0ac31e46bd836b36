package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.demo.lab.StreamProcessorMain.Mode;
import dev.idem.testing.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Where Kafka's exactly-once holds and where it stops, on the lab's broker with the
 * {@link StreamProcessorMain} in a child JVM, halted at its crash point {@code --kills} times and
 * restarted each time:
 * <ul>
 * <li>{@code kafka-eos}: an at-least-once processor writes its output and then commits its offsets, so
 *     a batch it wrote before a crash is written again; a transactional one writes output and offsets
 *     in one Kafka transaction, so a {@code read_committed} reader sees every event once.</li>
 * <li>{@code kafka-boundary}: the same transactional processor also books each event in the database;
 *     that commit is not part of the Kafka transaction, so a crash between the two books the batch
 *     again, unless idem's inbox claims the event ids in the bookings' transaction.</li>
 * </ul>
 * Counted from the output topic (a reader of each isolation level) and the bookings table. A row's
 * two sides run at the same time, on topics, groups and tables of their own.
 */
final class KafkaRows {
    static final PatternRow INSIDE = new PatternRow("kafka-eos", Group.KAFKA, "processor halted mid-batch + restarted",
            List.of(Side.naive("at-least-once: output, then offsets"), Side.idempotent("transaction: output + offsets")),
            "events", "events a read_committed reader does not see exactly once", PatternRow.Needs.KAFKA, KafkaRows::insideKafka);
    static final PatternRow BOUNDARY = new PatternRow("kafka-boundary", Group.KAFKA, "halted after the DB commit, before the Kafka commit",
            List.of(Side.naive("transaction + DB insert, no inbox"), Side.idempotent("transaction + DB insert, idem inbox")),
            "events", "events without exactly one booking row", PatternRow.Needs.KAFKA, KafkaRows::boundary);

    private static final int PARTITIONS = 3;
    private static final Duration LIFE = Duration.ofSeconds(90);
    private static final Duration READ = Duration.ofSeconds(30);

    private KafkaRows() {
    }

    /** What one processor left behind, counted from its output topic and bookings table. */
    record Outcome(Map<String, Integer> committed, int uncommittedRecords, Map<String, Long> bookings, int kills, long millis) {
        int committedRecords() {
            return committed.values().stream().mapToInt(Integer::intValue).sum();
        }

        long bookingRows() {
            return bookings.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    static PatternResult insideKafka(PatternRow row, RowContext context) throws Exception {
        long started = System.nanoTime();
        List<String> events = eventIds(context.items());
        List<Outcome> outcomes = bothSides(row, Mode.AT_LEAST_ONCE, Mode.TRANSACTIONAL, context, events);
        Outcome naive = outcomes.get(0);
        Outcome idem = outcomes.get(1);
        return new PatternResult(row, List.of(
                side(row.sides().get(0), events, naive.committed(), naive.committedRecords() + " postings; " + kills(naive), naive.millis()),
                side(row.sides().get(1), events, idem.committed(), idem.committedRecords() + " postings (+" + (idem.uncommittedRecords()
                        - idem.committedRecords()) + " aborted); " + kills(idem), idem.millis())),
                "a read_uncommitted reader of the transactional output sees " + idem.uncommittedRecords()
                        + " postings: the killed transactions' postings are in the log, aborted", (System.nanoTime() - started) / 1_000_000, null);
    }

    static PatternResult boundary(PatternRow row, RowContext context) throws Exception {
        long started = System.nanoTime();
        List<String> events = eventIds(context.items());
        List<Outcome> outcomes = bothSides(row, Mode.TRANSACTIONAL_DB, Mode.TRANSACTIONAL_DB_INBOX, context, events);
        Outcome naive = outcomes.get(0);
        Outcome idem = outcomes.get(1);
        return new PatternResult(row, List.of(
                side(row.sides().get(0), events, naive.bookings(), naive.bookingRows() + " bookings; " + kills(naive), naive.millis()),
                side(row.sides().get(1), events, idem.bookings(), idem.bookingRows() + " bookings; " + kills(idem), idem.millis())),
                "both output topics, read_committed: " + exactlyOnce(events, naive.committed()) + " and " + exactlyOnce(events, idem.committed())
                        + " of " + events.size() + " events exactly once: Kafka's part held on both sides", (System.nanoTime() - started) / 1_000_000,
                null);
    }

    /**
     * The naive and the idempotent processor at the same time: each has its own topics, group and
     * table, so neither sees the other, and the row takes the time of the slower instead of the sum.
     */
    private static List<Outcome> bothSides(PatternRow row, Mode naive, Mode idempotent, RowContext context, List<String> events)
            throws Exception {
        ExecutorService sides = Executors.newFixedThreadPool(2);
        try {
            Future<Outcome> first = sides.submit(() -> run(row, naive, context, events));
            Future<Outcome> second = sides.submit(() -> run(row, idempotent, context, events));
            return List.of(outcome(first), outcome(second));
        } finally {
            sides.shutdownNow();
        }
    }

    private static Outcome outcome(Future<Outcome> side) throws Exception {
        try {
            return side.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static String kills(Outcome outcome) {
        return outcome.kills() + (outcome.kills() == 1 ? " kill" : " kills");
    }

    private static SideResult side(Side side, List<String> events, Map<String, ? extends Number> perEvent, String sink, long millis) {
        int wrong = events.size() - exactlyOnce(events, perEvent);
        return new SideResult(side, events.size(), sink, wrong, millis);
    }

    private static int exactlyOnce(List<String> events, Map<String, ? extends Number> perEvent) {
        return (int) events.stream().filter(e -> perEvent.containsKey(e) && perEvent.get(e).longValue() == 1).count();
    }

    static List<String> eventIds(int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            ids.add(String.format("event-%03d", i));
        }
        return ids;
    }

    /** Topics of its own, the events produced, the processor's lives, then the counts. */
    private static Outcome run(PatternRow row, Mode mode, RowContext context, List<String> events) throws Exception {
        KafkaBroker broker = context.kafka();
        String name = row.id() + "-" + mode.flag + "-" + context.runTag();
        String in = "lab-in-" + name;
        String out = "lab-out-" + name;
        String group = "lab-" + name;
        broker.createTopic(in, PARTITIONS);
        broker.createTopic(out, PARTITIONS);
        String table = mode == Mode.TRANSACTIONAL_DB_INBOX ? "lab_booking_inbox" : "lab_booking_plain";
        String jdbcUrl = mode.books ? context.jdbcUrl(row.id(), mode.flag) : null;
        if (mode.books) {
            try (HikariDataSource db = RowContext.pool(jdbcUrl, 1)) {
                Sql.recreate(db, table, "booking_id " + Sql.identity(Sql.dialect(db)) + ", event_id text NOT NULL, posting text NOT NULL");
            }
        }
        produce(broker.bootstrapServers(), in, events, new Random(context.seed()));
        List<String> args = new ArrayList<>(List.of("--kafka", broker.bootstrapServers(), "--in", in, "--out", out, "--group", group,
                "--mode", mode.flag));
        if (mode.books) {
            args.addAll(List.of("--db", jdbcUrl, "--table", table));
        }
        long started = System.nanoTime();
        int kills;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            kills = lives(context, args, admin, group, in, mode, events.size());
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Map<String, Long> bookings = Map.of();
        if (mode.books) {
            try (HikariDataSource db = RowContext.pool(jdbcUrl, 1)) {
                bookings = Sql.longsBy(db, "SELECT event_id, count(*) FROM " + table + " GROUP BY event_id");
            }
        }
        Map<String, Integer> committed = read(broker.bootstrapServers(), out, "read_committed");
        int uncommitted = read(broker.bootstrapServers(), out, "read_uncommitted").values().stream().mapToInt(Integer::intValue).sum();
        return new Outcome(committed, uncommitted, bookings, kills, millis);
    }

    /**
     * The processor's lives: halted at its crash point {@code --kills} times (each life handles a share
     * of the events first), then a last life until the group has committed the whole input.
     *
     * @return the halts that happened
     */
    private static int lives(RowContext context, List<String> args, Admin admin, String group, String in, Mode mode, int events)
            throws Exception {
        int planned = context.settings().kills();
        int crashAfter = Math.max(1, events / (planned + 1));
        JavaApp app = context.streamProcessor();
        Path log = context.log("stream-processor-" + mode.flag + ".log");
        int kills = 0;
        while (true) {
            List<String> lifeArgs = new ArrayList<>(args);
            if (kills < planned) {
                lifeArgs.addAll(List.of("--crash-after", Integer.toString(crashAfter)));
            }
            ChildProcess process = ChildProcess.start(app, lifeArgs, log);
            long deadline = System.nanoTime() + LIFE.toNanos();
            while (process.alive() && !caughtUp(admin, group, in)) {
                if (System.nanoTime() > deadline) {
                    process.kill();
                    throw new IllegalStateException("the stream processor (" + mode.flag + ") neither halted nor caught up within "
                            + LIFE.toSeconds() + " s; see " + log);
                }
                ChildProcess.sleep(100);
            }
            if (process.alive()) {
                process.stop();
                return kills;
            }
            if (process.exitCode() != StreamProcessorMain.CRASH_EXIT_CODE) {
                throw new IllegalStateException("the stream processor (" + mode.flag + ") exited with " + process.exitCode() + "; see " + log);
            }
            kills++;
            context.event("stream processor (" + mode.flag + ") halted at its crash point; restarting");
        }
    }

    /** Whether the group's committed offsets reach the end of every partition of the input topic. */
    private static boolean caughtUp(Admin admin, String group, String in) throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(in, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
        return ends.entrySet().stream().allMatch(e -> {
            OffsetAndMetadata done = committed.get(e.getKey());
            return (done == null ? 0 : done.offset()) >= e.getValue().offset();
        });
    }

    /** The payment events, keyed by id; the value is "account:cents". */
    private static void produce(String bootstrap, String topic, List<String> events, Random random) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (String id : events) {
                producer.send(new ProducerRecord<>(topic, id, String.format("acct-%02d:%d", 1 + random.nextInt(20), 100 + random.nextInt(99_900))));
            }
            producer.flush();
        }
    }

    /** Records per key of the whole topic, as a reader with this isolation level sees it. */
    static Map<String, Integer> read(String bootstrap, String topic, String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, Integer> perKey = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + READ.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + READ.toSeconds() + " s");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    perKey.merge(r.key(), 1, Integer::sum);
                }
            }
        }
        return perKey;
    }
}
