package dev.idem.demo.ledger;

import dev.idem.kafka.KafkaHeaders;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Mode {@code no-inbox}, the broken baseline, deliberately naive: poll, append the batch's rows in
 * one database transaction, commit it, then {@code commitSync} the offsets. Nothing remembers which
 * records were written, so a batch whose rows committed but whose offsets did not (a crash between
 * the two, a rebalance) is delivered again and written again. Everything else is done properly: a
 * database failure rewinds to the batch's first records and tries again, and a value that is not a
 * payment event is logged and skipped.
 */
final class NaiveLoop implements LedgerLoop, Runnable {
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final DataSource dataSource;
    private final KafkaSettings kafka;
    private final CrashPoint crash;
    private final JsonMapper json;
    private final Thread thread;
    private volatile KafkaConsumer<String, byte[]> consumer;
    private volatile boolean running = true;
    private volatile State state = State.STARTING;

    NaiveLoop(DataSource dataSource, KafkaSettings kafka, CrashPoint crash, JsonMapper json) {
        this.dataSource = dataSource;
        this.kafka = kafka;
        this.crash = crash;
        this.json = json;
        this.thread = new Thread(this, "ledger-no-inbox");
        thread.setDaemon(true);
    }

    @Override
    public void start() {
        thread.start();
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public void run() {
        KafkaConsumer<String, byte[]> c = null;
        try {
            c = new KafkaConsumer<>(kafka.consumerConfig(), new StringDeserializer(), new ByteArrayDeserializer());
            consumer = c;
            c.subscribe(List.of(kafka.topic()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    state = State.UP;
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    // Nothing to do: offsets are committed right after each batch's rows.
                }
            });
            loop(c);
        } catch (RuntimeException e) {
            System.err.println("ledger-consumer: the consumer loop stopped: " + e);
        } finally {
            if (running) {
                state = State.DOWN;
            }
            if (c != null) {
                try {
                    c.close(CloseOptions.timeout(CLOSE_TIMEOUT));
                } catch (RuntimeException e) {
                    System.err.println("ledger-consumer: closing the Kafka consumer failed: " + e);
                }
            }
        }
    }

    private void loop(KafkaConsumer<String, byte[]> c) {
        while (running) {
            ConsumerRecords<String, byte[]> records;
            try {
                records = c.poll(POLL_TIMEOUT);
            } catch (WakeupException e) {
                continue;
            }
            if (records.isEmpty()) {
                continue;
            }
            List<PaymentEvent> events = new ArrayList<>(records.count());
            List<String> messageIds = new ArrayList<>(records.count());
            for (ConsumerRecord<String, byte[]> record : records) {
                try {
                    events.add(PaymentEvent.parse(record.value(), json));
                    messageIds.add(messageIdHeader(record));
                } catch (PaymentEvent.InvalidEventException e) {
                    System.err.println("ledger-consumer: skipped the record at " + InboxLoop.where(record) + ": " + e.getMessage());
                }
            }
            if (!events.isEmpty()) {
                if (!write(events, messageIds)) {
                    rewind(c, records);
                    pause();
                    continue;
                }
                crash.committed(events.size());
            }
            commit(c);
        }
    }

    /** The batch's rows in one transaction; false (rolled back) if the database failed. */
    private boolean write(List<PaymentEvent> events, List<String> messageIds) {
        boolean committed = false;
        // The pool puts auto-commit back when the connection returns to it.
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                LedgerTable.appendAll(connection, events, messageIds);
                connection.commit();
                committed = true;
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            }
        } catch (SQLException | RuntimeException e) {
            if (committed) {
                // Only returning the connection failed; the rows are in, so do not write them again.
                return true;
            }
            System.err.println("ledger-consumer: writing " + events.size() + " entries failed, polling them again in "
                    + RETRY_BACKOFF.toSeconds() + " s: " + e);
            return false;
        }
        return true;
    }

    /** Back to each partition's first record of the batch: the rows were not written. */
    private static void rewind(KafkaConsumer<String, byte[]> c, ConsumerRecords<String, byte[]> records) {
        for (TopicPartition tp : records.partitions()) {
            c.seek(tp, records.records(tp).get(0).offset());
        }
    }

    /** Commits the positions of the last poll. */
    private void commit(KafkaConsumer<String, byte[]> c) {
        for (int i = 0; i < 2; i++) {
            try {
                c.commitSync(COMMIT_TIMEOUT);
                return;
            } catch (WakeupException e) {
                // close() woke a blocking call; the rows are written, so the commit is still owed: once more.
            } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
                // The naive part shows here too: these rows are written and will be again by whoever gets the records.
                System.err.println("ledger-consumer: offset commit failed (" + e.getClass().getSimpleName() + "); the batch will be delivered again");
                return;
            }
        }
    }

    private void pause() {
        try {
            Thread.sleep(RETRY_BACKOFF.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private static String messageIdHeader(ConsumerRecord<String, byte[]> record) {
        Header header = record.headers().lastHeader(KafkaHeaders.MESSAGE_ID);
        return header == null || header.value() == null || header.value().length == 0
                ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        running = false;
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        // No interrupt: Kafka's client answers one with an exception, and the last commit would be lost.
        try {
            thread.join(CLOSE_TIMEOUT.toMillis() + COMMIT_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
