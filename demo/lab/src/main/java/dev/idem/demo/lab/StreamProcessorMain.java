package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.inbox.Inbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The Kafka rows' consume-transform-produce processor, run by the lab in a child JVM: reads payment
 * events from {@code --in}, writes a ledger posting per event to {@code --out}, and in the database
 * modes also books each event as a row. With {@code --crash-after N} it halts ({@code Runtime.halt},
 * exit status 3, as abrupt as SIGKILL) at its mode's crash point once it has handled N records.
 *
 * <ul>
 * <li>{@code at-least-once}: per poll, the postings, a flush, then {@code commitSync} of the offsets;
 *     halts between the flush and the offset commit.</li>
 * <li>{@code transactional}: per poll, one Kafka transaction holds the postings and the offsets
 *     ({@code sendOffsetsToTransaction}); halts in the middle of it, its postings flushed.</li>
 * <li>{@code transactional-db}: as {@code transactional}, and the batch's bookings are INSERTed and
 *     committed in the database before the Kafka transaction commits; halts between the two commits.</li>
 * <li>{@code transactional-db-inbox}: as {@code transactional-db}, with idem's inbox claiming each
 *     event id in the bookings' database transaction.</li>
 * </ul>
 * The input is read with {@code assign} (no group membership, so a restart resumes at once from the
 * group's committed offsets); the transactional id is fixed, so a restart fences and aborts the
 * transaction its killed predecessor left open.
 */
@Command(name = "stream-processor", mixinStandardHelpOptions = true, description = "The idem lab's Kafka consume-transform-produce processor.")
public final class StreamProcessorMain implements Callable<Integer> {
    static final int CRASH_EXIT_CODE = 3;
    /** Small polls: a crash falls inside a stream of batches, as in production, not after the only one. */
    static final int MAX_POLL_RECORDS = 5;

    /** How the processor makes its output and its progress agree. */
    enum Mode {
        AT_LEAST_ONCE("at-least-once", false, false),
        TRANSACTIONAL("transactional", true, false),
        TRANSACTIONAL_DB("transactional-db", true, true),
        TRANSACTIONAL_DB_INBOX("transactional-db-inbox", true, true);

        final String flag;
        final boolean transactional;
        final boolean books;

        Mode(String flag, boolean transactional, boolean books) {
            this.flag = flag;
            this.transactional = transactional;
            this.books = books;
        }

        static Mode of(String flag) {
            for (Mode mode : values()) {
                if (mode.flag.equals(flag)) {
                    return mode;
                }
            }
            throw new CommandLine.TypeConversionException("expected at-least-once, transactional, transactional-db or transactional-db-inbox, was '"
                    + flag + "'");
        }
    }

    @Option(names = "--kafka", required = true, description = "Bootstrap servers.")
    String kafka;

    @Option(names = "--in", required = true, description = "Topic of payment events.")
    String in;

    @Option(names = "--out", required = true, description = "Topic of ledger postings.")
    String out;

    @Option(names = "--group", required = true, description = "Group of the committed offsets; also the transactional id's prefix and the inbox consumer.")
    String group;

    @Option(names = "--mode", required = true, converter = ModeConverter.class,
            description = "at-least-once | transactional | transactional-db | transactional-db-inbox")
    Mode mode;

    @Option(names = "--db", description = "JDBC URL of the bookings' database (the database modes).")
    String db;

    @Option(names = "--table", description = "Bookings table (the database modes); the lab creates it.")
    String table;

    @Option(names = "--crash-after", description = "Halt at the mode's crash point once this many records were handled.")
    Integer crashAfter;

    private volatile boolean running = true;
    private int handled;

    public static void main(String[] args) {
        System.exit(new CommandLine(new StreamProcessorMain()).execute(args));
    }

    static final class ModeConverter implements CommandLine.ITypeConverter<Mode> {
        @Override
        public Mode convert(String value) {
            return Mode.of(value);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (mode.books && (db == null || table == null || !table.matches("[a-z_][a-z0-9_]{0,62}"))) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--mode " + mode.flag
                    + " needs --db and --table (a lower-case SQL name)");
        }
        CountDownLatch stopped = new CountDownLatch(1);
        try (HikariDataSource bookings = mode.books ? RowContext.pool(db, 2) : null;
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(), new StringDeserializer(), new StringDeserializer());
             KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(), new StringSerializer())) {
            Inbox inbox = null;
            if (mode == Mode.TRANSACTIONAL_DB_INBOX) {
                inbox = Inbox.builder(bookings).build();
                inbox.migrate();
            }
            List<TopicPartition> partitions = consumer.partitionsFor(in).stream().map(p -> new TopicPartition(in, p.partition())).toList();
            consumer.assign(partitions);
            if (mode.transactional) {
                producer.initTransactions();
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                running = false;
                consumer.wakeup();
                awaitQuietly(stopped);
            }, "stream-processor-stop"));
            System.out.printf("stream-processor: %s from %s to %s, group %s%s%n", mode.flag, in, out, group,
                    crashAfter == null ? "" : ", halting after " + crashAfter + " records");
            System.out.flush();
            Inbox claims = inbox;
            while (running) {
                try {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                    if (!records.isEmpty()) {
                        process(records, consumer, producer, bookings, claims);
                    }
                } catch (WakeupException e) {
                    // SIGTERM: the loop ends after the batch in hand.
                }
            }
        } finally {
            stopped.countDown();
        }
        return 0;
    }

    private void process(ConsumerRecords<String, String> records, KafkaConsumer<String, String> consumer,
                         KafkaProducer<String, String> producer, HikariDataSource bookings, Inbox inbox) throws SQLException {
        List<ConsumerRecord<String, String>> batch = new ArrayList<>();
        records.forEach(batch::add);
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, String> r : batch) {
            next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        if (mode.transactional) {
            producer.beginTransaction();
        }
        for (ConsumerRecord<String, String> r : batch) {
            producer.send(new ProducerRecord<>(out, r.key(), posting(r.key(), r.value())));
            handled++;
            if (mode == Mode.TRANSACTIONAL) {
                // Mid-transaction: its postings are in the log, neither committed nor aborted.
                crashPoint(producer);
            }
        }
        if (mode.books) {
            book(bookings, inbox, batch);
            crashPoint(producer);
        }
        if (mode.transactional) {
            producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
            producer.commitTransaction();
        } else {
            producer.flush();
            crashPoint(producer);
            consumer.commitSync(next);
        }
    }

    /** Halts once {@code --crash-after} records were handled, the producer's sends flushed first. */
    private void crashPoint(KafkaProducer<String, String> producer) {
        if (crashAfter != null && handled >= crashAfter) {
            producer.flush();
            System.out.println("stream-processor: crash point after " + handled + " records");
            System.out.flush();
            Runtime.getRuntime().halt(CRASH_EXIT_CODE);
        }
    }

    /** The batch's bookings in one database transaction; with the inbox, only for event ids it has not claimed before. */
    private void book(HikariDataSource bookings, Inbox inbox, List<ConsumerRecord<String, String>> batch) throws SQLException {
        try (Connection c = bookings.getConnection()) {
            c.setAutoCommit(false);
            try {
                Set<String> fresh = inbox == null ? null : new HashSet<>(inbox.claimBatch(c, group, batch.stream().map(ConsumerRecord::key).toList()));
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (event_id, posting) VALUES (?, ?)")) {
                    for (ConsumerRecord<String, String> r : batch) {
                        if (fresh == null || fresh.remove(r.key())) {
                            ps.setString(1, r.key());
                            ps.setString(2, posting(r.key(), r.value()));
                            ps.addBatch();
                        }
                    }
                    ps.executeBatch();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** The transformation: a payment event "account:cents" becomes a ledger posting. Deterministic. */
    static String posting(String eventId, String event) {
        int colon = event.indexOf(':');
        return "{\"event\":\"" + eventId + "\",\"debit\":\"" + event.substring(0, colon) + "\",\"credit\":\"merchant\",\"cents\":"
                + event.substring(colon + 1) + "}";
    }

    private Properties consumerConfig() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(MAX_POLL_RECORDS));
        return p;
    }

    private Properties producerConfig() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        if (mode.transactional) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, group + "-tx");
        }
        return p;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
