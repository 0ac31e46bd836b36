package dev.idem.kafka;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * A Kafka consumer loop whose records have their effect <b>exactly once</b>: each poll's records are
 * claimed in the {@link Inbox} with <b>one</b> batch statement, the handler runs for the new message
 * ids only, and the claims and the handler's writes commit in one database transaction; only
 * <b>after</b> that commit are the offsets committed to Kafka ({@code commitSync}). A crash between
 * the two means a redelivery, which the inbox answers as a duplicate.
 *
 * <pre>{@code
 * IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(dataSource, inbox)
 *         .consumerConfig(Map.of("bootstrap.servers", servers, "group.id", "ledger",
 *                 "key.deserializer", StringDeserializer.class, "value.deserializer", StringDeserializer.class))
 *         .topics("payments")
 *         .handler((connection, record) -> insertLedgerEntry(connection, record.value()))
 *         .build()
 *         .start();
 * }</pre>
 *
 * <h2>Per poll</h2>
 * <ol>
 * <li>Every record's message id is told by the {@link MessageIdExtractor} (default: the
 *     {@code message-id} header the outbox relay writes, else {@code topic-partition-offset}).</li>
 * <li>One transaction: {@link Inbox#claimBatch} for all ids, the handler for each new id (once per
 *     id, in partition order), in the offsets-in-database mode the partitions' next offsets, commit.</li>
 * <li>{@code commitSync} of the next offsets (Kafka mode).</li>
 * </ol>
 * If the handler throws, the poll's transaction is rolled back and its records are redone one per
 * transaction, in order per partition. A record whose handler throws has its attempt counted by the
 * inbox ({@link Inbox#recordFailure}); its partition is sought back to it and paused for
 * {@code retryBackoff} (other partitions flow), so it is delivered again, and after the inbox's
 * {@code maxAttempts} it is quarantined and the partition moves past it: a poison message never
 * blocks a partition for good. Offsets of records whose transaction did not commit are never
 * committed. A record the deserializers refuse, or whose message id the extractor cannot tell, is
 * counted and quarantined the same way. If the database fails (not the handler), nothing is counted:
 * the records are sought back and polled again after {@code retryBackoff}.
 *
 * <h2>Rebalances and shutdown</h2>
 * Offsets of processed records whose Kafka commit failed (a rebalance in progress, a timeout) are
 * kept and committed on the next poll or, at the latest, in {@code onPartitionsRevoked}; offsets of
 * lost partitions are dropped (the inbox dedupes the redelivery). {@link #close()} wakes the loop
 * ({@code wakeup}), commits what was processed and closes the consumer. If the loop ends with an
 * unexpected exception, nothing more is committed: the group redelivers from the last commit.
 *
 * <h2>Offsets in the database</h2>
 * With {@link Builder#offsetsInDatabase}, each transaction also stores the partitions' next offsets
 * in a {@link KafkaOffsetStore}, and on assignment the consumer seeks to them; nothing is committed
 * to Kafka. Partitions without a stored offset start where Kafka's committed offset or
 * {@code auto.offset.reset} puts them.
 *
 * <p>One instance runs once: {@link #run()} on the caller's thread or {@link #start()} on a new one;
 * run several instances (in one group) for more partitions in parallel. The {@link DataSource} must
 * be the inbox's database.
 */
public final class IdempotentKafkaConsumer<K, V> implements Runnable, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.idem.kafka");
    private static final int STORE_READ_TRIES = 3;

    private final DataSource dataSource;
    private final Inbox inbox;
    private final Supplier<? extends Consumer<K, V>> consumerFactory;
    private final List<String> topics;
    private final String configuredName;
    private final MessageIdExtractor messageIds;
    private final KafkaRecordHandler<K, V> handler;
    private final Duration pollTimeout;
    private final Duration commitTimeout;
    private final Duration retryBackoff;
    private final Duration closeTimeout;
    private final KafkaOffsetStore offsetStore;
    private final KafkaConsumerListener listener;
    private final Function<? super ConsumerRecord<K, V>, byte[]> quarantinePayload;

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Object sleeper = new Object();
    private volatile boolean running = true;
    private volatile Consumer<K, V> consumer;
    private volatile Thread pollThread;
    private volatile Throwable failure;
    private volatile String name;

    // Owned by the poll thread.
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
    private final Map<TopicPartition, Long> pausedUntil = new HashMap<>();
    private boolean abandoned;
    private String group;

    private IdempotentKafkaConsumer(Builder<K, V> b) {
        this.dataSource = b.dataSource;
        this.inbox = b.inbox;
        this.consumerFactory = b.consumerFactory();
        this.topics = List.copyOf(b.topics);
        this.configuredName = b.consumerName();
        this.messageIds = b.messageIds;
        this.handler = b.handler;
        this.pollTimeout = b.pollTimeout;
        this.commitTimeout = b.commitTimeout;
        this.retryBackoff = b.retryBackoff;
        this.closeTimeout = b.closeTimeout;
        this.offsetStore = b.offsetStore;
        this.listener = b.listener;
        this.quarantinePayload = b.quarantinePayload;
        this.name = configuredName;
    }

    /**
     * A consumer whose records are deduplicated by {@code inbox}, whose database {@code dataSource}
     * reaches (the handler's writes, the claims and stored offsets commit there together).
     */
    public static <K, V> Builder<K, V> builder(DataSource dataSource, Inbox inbox) {
        return new Builder<>(dataSource, inbox);
    }

    /** Starts {@link #run()} on a new daemon thread named {@code idem-kafka-<consumer name>}. */
    public IdempotentKafkaConsumer<K, V> start() {
        Thread t = new Thread(() -> {
            try {
                run();
            } catch (Throwable e) {
                LOG.log(System.Logger.Level.ERROR, "idempotent Kafka consumer " + name + " stopped", e);
            }
        }, "idem-kafka-" + (configuredName == null ? "consumer" : configuredName));
        t.setDaemon(true);
        t.start();
        return this;
    }

    /**
     * Polls and processes until {@link #close()}; then commits the processed offsets and closes the
     * Kafka consumer. Throws what ended the loop otherwise (the consumer is closed then too, without
     * committing anything more).
     *
     * @throws IllegalStateException if this instance ran before
     */
    @Override
    public void run() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("this consumer ran already; build a new one");
        }
        pollThread = Thread.currentThread();
        try {
            if (!running) {
                return;
            }
            Consumer<K, V> c = Objects.requireNonNull(consumerFactory.get(), "the consumer factory returned null");
            consumer = c;
            try {
                loop(c);
            } catch (Throwable e) {
                abandoned = true;
                pending.clear();
                failure = e;
                throw e;
            } finally {
                closeQuietly(c);
            }
        } finally {
            finished.countDown();
        }
    }

    /**
     * Stops the loop: wakes a blocked poll, lets the current poll's work finish, commits the
     * processed offsets and closes the Kafka consumer; waits up to {@code closeTimeout} for that.
     */
    @Override
    public void close() {
        running = false;
        Consumer<K, V> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        if (!started.get() || Thread.currentThread() == pollThread) {
            return;
        }
        try {
            if (!finished.await(closeTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "idempotent Kafka consumer " + name + " did not stop within " + closeTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What ended the loop, if it ended with an exception. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** The inbox consumer name: the configured one, else (once running) the group id. */
    public String consumerName() {
        return name;
    }

    public List<String> topics() {
        return topics;
    }

    /** Whether offsets are kept in the database instead of committed to Kafka. */
    public boolean offsetsInDatabase() {
        return offsetStore != null;
    }

    @Override
    public String toString() {
        return "IdempotentKafkaConsumer[" + (name == null ? "?" : name) + ", topics=" + topics
                + (offsetStore != null ? ", offsets in " + offsetStore : "") + "]";
    }

    // ---- the loop ------------------------------------------------------------------------------------

    private void loop(Consumer<K, V> c) {
        group = c.groupMetadata().groupId();
        if (configuredName == null) {
            name = checkConsumerName(group, "the group id (used as the inbox consumer name; set consumerName)");
        }
        c.subscribe(topics, new Rebalance(c));
        while (running) {
            resumeDue(c);
            ConsumerRecords<K, V> records;
            try {
                records = c.poll(pollTimeout);
            } catch (WakeupException e) {
                continue;
            } catch (RecordDeserializationException e) {
                undeserializable(c, e);
                continue;
            }
            if (!records.isEmpty()) {
                handle(c, records);
            }
            if (!pending.isEmpty()) {
                commitPending(c);
            }
        }
        // A wakeup meant for a blocking call may hit the first commit; the second one then goes through.
        for (int i = 0; i < 2 && !pending.isEmpty(); i++) {
            commitPending(c);
        }
    }

    private void handle(Consumer<K, V> c, ConsumerRecords<K, V> records) {
        Map<TopicPartition, List<Item<K, V>>> byPartition = new LinkedHashMap<>();
        List<Item<K, V>> items = new ArrayList<>(records.count());
        for (TopicPartition tp : records.partitions()) {
            List<Item<K, V>> list = new ArrayList<>();
            for (ConsumerRecord<K, V> r : records.records(tp)) {
                Item<K, V> item = item(tp, r);
                list.add(item);
                items.add(item);
            }
            byPartition.put(tp, list);
        }
        Map<TopicPartition, OffsetAndMetadata> settled;
        Batch result = processBatch(byPartition, items);
        if (result == Batch.COMMITTED) {
            settled = new HashMap<>();
            byPartition.forEach((tp, list) -> settled.put(tp, next(list.get(list.size() - 1).record)));
            for (Item<K, V> item : items) {
                if (item.fresh) {
                    guard(() -> listener.processed(name, item.record, item.id));
                } else {
                    guard(() -> listener.duplicate(name, item.record, item.id));
                }
            }
            if (offsetStore != null) {
                guard(() -> listener.committed(name, settled, true));
            }
        } else if (result == Batch.HANDLER_FAILED) {
            settled = oneByOne(c, byPartition);
        } else {
            byPartition.forEach((tp, list) -> c.seek(tp, list.get(0).record.offset()));
            backoff();
            return;
        }
        if (offsetStore == null && !settled.isEmpty()) {
            pending.putAll(settled);
            commitPending(c);
        }
    }

    private enum Batch { COMMITTED, HANDLER_FAILED, DATABASE_FAILED }

    /** The poll's records in one transaction; nothing is reported or committed to Kafka here. */
    private Batch processBatch(Map<TopicPartition, List<Item<K, V>>> byPartition, List<Item<K, V>> items) {
        for (Item<K, V> item : items) {
            if (item.idFailure != null) {
                return Batch.HANDLER_FAILED;
            }
        }
        List<String> ids = new ArrayList<>(items.size());
        for (Item<K, V> item : items) {
            ids.add(item.id);
        }
        try (Connection conn = dataSource.getConnection()) {
            boolean autoCommit = conn.getAutoCommit();
            if (autoCommit) {
                conn.setAutoCommit(false);
            }
            try {
                Set<String> fresh = new HashSet<>(inbox.claimBatch(conn, name, ids));
                for (Item<K, V> item : items) {
                    item.fresh = fresh.remove(item.id);
                    if (item.fresh) {
                        try {
                            handler.handle(conn, item.record);
                        } catch (Exception e) {
                            conn.rollback();
                            return Batch.HANDLER_FAILED;
                        }
                    }
                }
                requireTransaction(conn);
                if (offsetStore != null) {
                    Map<TopicPartition, Long> offsets = new HashMap<>();
                    byPartition.forEach((tp, list) -> offsets.put(tp, list.get(list.size() - 1).record.offset() + 1));
                    offsetStore.write(conn, group, offsets);
                }
                conn.commit();
                return Batch.COMMITTED;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(conn, e);
                if (e instanceof HandlerCommitted) {
                    throw (HandlerCommitted) e;
                }
                LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": the database failed; the poll's "
                        + items.size() + " records will be polled again after " + retryBackoff, e);
                return Batch.DATABASE_FAILED;
            } finally {
                restoreQuietly(conn, autoCommit);
            }
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": no database connection; the poll's records will be polled again", e);
            return Batch.DATABASE_FAILED;
        }
    }

    private enum One { PROCESSED, DUPLICATE, QUARANTINED, FAILED, DATABASE_FAILED }

    /** After a failed batch: one transaction per record, in order per partition; a partition stops at its first unsettled record. */
    private Map<TopicPartition, OffsetAndMetadata> oneByOne(Consumer<K, V> c, Map<TopicPartition, List<Item<K, V>>> byPartition) {
        Map<TopicPartition, OffsetAndMetadata> settled = new HashMap<>();
        boolean databaseDown = false;
        for (Map.Entry<TopicPartition, List<Item<K, V>>> e : byPartition.entrySet()) {
            TopicPartition tp = e.getKey();
            for (Item<K, V> item : e.getValue()) {
                One outcome = databaseDown ? One.DATABASE_FAILED : processOne(tp, item);
                if (outcome == One.FAILED || outcome == One.DATABASE_FAILED) {
                    c.seek(tp, item.record.offset());
                    if (outcome == One.FAILED && retryBackoff.toMillis() > 0) {
                        c.pause(List.of(tp));
                        pausedUntil.put(tp, System.nanoTime() + retryBackoff.toNanos());
                    }
                    databaseDown |= outcome == One.DATABASE_FAILED;
                    break;
                }
                settled.put(tp, next(item.record));
            }
        }
        if (offsetStore != null && !settled.isEmpty()) {
            guard(() -> listener.committed(name, settled, true));
        }
        if (databaseDown) {
            backoff();
        }
        return settled;
    }

    private One processOne(TopicPartition tp, Item<K, V> item) {
        if (item.idFailure != null) {
            return recordFailure(item, item.idFailure);
        }
        Exception handlerFailure = null;
        try (Connection conn = dataSource.getConnection()) {
            boolean autoCommit = conn.getAutoCommit();
            if (autoCommit) {
                conn.setAutoCommit(false);
            }
            try {
                boolean fresh = inbox.claim(conn, name, item.id);
                if (fresh) {
                    try {
                        handler.handle(conn, item.record);
                    } catch (Exception e) {
                        handlerFailure = e;
                    }
                }
                if (handlerFailure != null) {
                    conn.rollback();
                } else {
                    if (fresh) {
                        requireTransaction(conn);
                    }
                    if (offsetStore != null) {
                        offsetStore.write(conn, group, Map.of(tp, item.record.offset() + 1));
                    }
                    conn.commit();
                    if (fresh) {
                        guard(() -> listener.processed(name, item.record, item.id));
                        return One.PROCESSED;
                    }
                    guard(() -> listener.duplicate(name, item.record, item.id));
                    return One.DUPLICATE;
                }
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(conn, e);
                if (e instanceof HandlerCommitted) {
                    throw (HandlerCommitted) e;
                }
                LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": the database failed; the record will be polled again", e);
                return One.DATABASE_FAILED;
            } finally {
                restoreQuietly(conn, autoCommit);
            }
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": no database connection; the record will be polled again", e);
            return One.DATABASE_FAILED;
        }
        // Counted on another connection once this one is back in the pool: a SQLite connection holds
        // the write lock from its rollback on until it leaves its transaction.
        return recordFailure(item, handlerFailure);
    }

    private One recordFailure(Item<K, V> item, Throwable cause) {
        byte[] payload;
        try {
            payload = quarantinePayload.apply(item.record);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": the quarantine payload function failed; keeping an empty payload", e);
            payload = null;
        }
        return recordFailure(item.record, item.id, payload, cause);
    }

    /** Counts the failed attempt in the inbox (in its own transaction); quarantines the message at the inbox's maximum. */
    private One recordFailure(ConsumerRecord<?, ?> record, String id, byte[] payload, Throwable cause) {
        InboxOutcome outcome;
        try {
            outcome = inbox.recordFailure(name, quarantineMessage(record, id, payload), cause);
        } catch (RuntimeException e) {
            e.addSuppressed(cause);
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": could not count a failed attempt; the record will be polled again", e);
            return One.DATABASE_FAILED;
        }
        if (outcome.status() == InboxOutcome.Status.QUARANTINED) {
            guard(() -> listener.quarantined(name, record, id));
            return One.QUARANTINED;
        }
        guard(() -> listener.failed(name, record, id, outcome.attempts(), cause));
        return One.FAILED;
    }

    /**
     * A record the deserializers refused: the consumer stays at it. Counted like a handler failure,
     * under the id the extractor tells from its raw bytes and headers; once quarantined, the
     * partition moves past it (its offset committed, or stored in the database).
     */
    private void undeserializable(Consumer<K, V> c, RecordDeserializationException e) {
        TopicPartition tp = e.topicPartition();
        byte[] key = bytes(e.keyBuffer());
        byte[] value = bytes(e.valueBuffer());
        ConsumerRecord<byte[], byte[]> raw = new ConsumerRecord<>(tp.topic(), tp.partition(), e.offset(), e.timestamp(),
                e.timestampType(), key == null ? -1 : key.length, value == null ? -1 : value.length, key, value,
                e.headers() == null ? new RecordHeaders() : e.headers(), Optional.empty());
        String id;
        try {
            id = messageIds.messageId(raw);
            if (invalidMessageId(id) != null) {
                id = coordinates(raw);
            }
        } catch (Exception idFailure) {
            id = coordinates(raw);
        }
        One outcome = recordFailure(raw, id, value, e);
        if (outcome == One.QUARANTINED) {
            c.seek(tp, e.offset() + 1);
            Map<TopicPartition, OffsetAndMetadata> next = Map.of(tp, new OffsetAndMetadata(e.offset() + 1));
            if (offsetStore == null) {
                pending.putAll(next);
            } else if (storeOffsets(tp, e.offset() + 1)) {
                guard(() -> listener.committed(name, next, true));
            }
        } else {
            c.seek(tp, e.offset());
            if (outcome == One.FAILED && retryBackoff.toMillis() > 0) {
                c.pause(List.of(tp));
                pausedUntil.put(tp, System.nanoTime() + retryBackoff.toNanos());
            } else if (outcome == One.DATABASE_FAILED) {
                backoff();
            }
        }
    }

    /** Stores one partition's next offset in a transaction of its own (offsets-in-database mode). */
    private boolean storeOffsets(TopicPartition tp, long nextOffset) {
        try (Connection conn = dataSource.getConnection()) {
            boolean autoCommit = conn.getAutoCommit();
            if (autoCommit) {
                conn.setAutoCommit(false);
            }
            try {
                offsetStore.write(conn, group, Map.of(tp, nextOffset));
                conn.commit();
                return true;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(conn, e);
                throw e;
            } finally {
                restoreQuietly(conn, autoCommit);
            }
        } catch (SQLException | RuntimeException e) {
            // Harmless: the quarantined record is read again after a restart and skipped then.
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": could not store the offset past a quarantined record", e);
            return false;
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        ByteBuffer copy = buffer.duplicate();
        byte[] out = new byte[copy.remaining()];
        copy.get(out);
        return out;
    }

    // ---- offsets ----------------------------------------------------------------------------------------

    /** Commits the processed offsets; on a failure that a later try may overcome, keeps those of partitions still assigned. */
    private void commitPending(Consumer<K, V> c) {
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(pending);
        try {
            c.commitSync(offsets, commitTimeout);
            offsets.forEach((tp, o) -> pending.remove(tp, o));
            guard(() -> listener.committed(name, offsets, false));
        } catch (WakeupException e) {
            // close() woke the consumer; the loop ends and tries again.
        } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
            LOG.log(System.Logger.Level.INFO, "consumer " + name + ": offset commit failed (" + e.getClass().getSimpleName()
                    + "); kept for the next try or the revocation of the partitions");
            pending.keySet().retainAll(c.assignment());
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        private final Consumer<K, V> c;

        Rebalance(Consumer<K, V> c) {
            this.c = c;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            pausedUntil.keySet().removeAll(partitions);
            if (!abandoned && offsetStore == null) {
                Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
                for (TopicPartition tp : partitions) {
                    OffsetAndMetadata o = pending.get(tp);
                    if (o != null) {
                        mine.put(tp, o);
                    }
                }
                if (!mine.isEmpty()) {
                    commitOnRevocation(mine);
                }
            }
            pending.keySet().removeAll(partitions);
            guard(() -> listener.partitionsRevoked(name, partitions));
        }

        private void commitOnRevocation(Map<TopicPartition, OffsetAndMetadata> offsets) {
            for (int i = 0; i < 2; i++) {
                try {
                    c.commitSync(offsets, commitTimeout);
                    guard(() -> listener.committed(name, offsets, false));
                    return;
                } catch (WakeupException e) {
                    // A wakeup meant for a blocking call; try once more.
                } catch (KafkaException e) {
                    LOG.log(System.Logger.Level.INFO, "consumer " + name + ": offset commit on revocation failed ("
                            + e.getClass().getSimpleName() + "); the next owner gets those records again and the inbox skips them");
                    return;
                }
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            pausedUntil.keySet().removeAll(partitions);
            pending.keySet().removeAll(partitions);
            guard(() -> listener.partitionsRevoked(name, partitions));
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (offsetStore != null && !partitions.isEmpty()) {
                Map<TopicPartition, Long> stored = readStoredOffsets(partitions);
                stored.forEach(c::seek);
            }
            guard(() -> listener.partitionsAssigned(name, partitions));
        }
    }

    /** Retries a few times: starting a partition at the wrong position is worse than stopping. */
    private Map<TopicPartition, Long> readStoredOffsets(Collection<TopicPartition> partitions) {
        RuntimeException last = null;
        for (int i = 0; i < STORE_READ_TRIES; i++) {
            try {
                return offsetStore.read(group, partitions);
            } catch (RuntimeException e) {
                last = e;
                LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": could not read the stored offsets (try " + (i + 1) + ")", e);
                if (i + 1 < STORE_READ_TRIES) {
                    backoff();
                }
            }
        }
        throw last;
    }

    private static OffsetAndMetadata next(ConsumerRecord<?, ?> r) {
        return new OffsetAndMetadata(r.offset() + 1, r.leaderEpoch(), "");
    }

    private void resumeDue(Consumer<K, V> c) {
        if (pausedUntil.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        List<TopicPartition> due = new ArrayList<>();
        pausedUntil.forEach((tp, until) -> {
            if (now - until >= 0) {
                due.add(tp);
            }
        });
        if (!due.isEmpty()) {
            due.forEach(pausedUntil::remove);
            due.retainAll(c.assignment());
            c.resume(due);
        }
    }

    private void backoff() {
        synchronized (sleeper) {
            if (running && retryBackoff.toMillis() > 0) {
                try {
                    sleeper.wait(retryBackoff.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    running = false;
                }
            }
        }
    }

    // ---- records ------------------------------------------------------------------------------------------

    /** A polled record with its message id; {@code idFailure} if the extractor failed (then the id is the coordinates). */
    private static final class Item<K, V> {
        final ConsumerRecord<K, V> record;
        final String id;
        final Exception idFailure;
        boolean fresh;

        Item(ConsumerRecord<K, V> record, String id, Exception idFailure) {
            this.record = record;
            this.id = id;
            this.idFailure = idFailure;
        }
    }

    private Item<K, V> item(TopicPartition tp, ConsumerRecord<K, V> r) {
        try {
            String id = messageIds.messageId(r);
            String invalid = invalidMessageId(id);
            if (invalid != null) {
                return new Item<>(r, coordinates(r), new IllegalArgumentException("the message id extractor gave an invalid id: " + invalid));
            }
            return new Item<>(r, id, null);
        } catch (Exception e) {
            return new Item<>(r, coordinates(r), e);
        }
    }

    /** The coordinates as an id, hashed where a very long topic name would make it longer than 255 characters. */
    static String coordinates(ConsumerRecord<?, ?> r) {
        String id = MessageIdExtractor.coordinatesOf(r);
        if (id.length() <= 255) {
            return id;
        }
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256").digest(r.topic().getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder("sha256:");
            for (byte b : hash) {
                hex.append(String.format("%02x", b));
            }
            return hex + "-" + r.partition() + "-" + r.offset();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    /** Null if {@code id} is a valid inbox message id (1–255 characters, no control characters), else why not. */
    static String invalidMessageId(String id) {
        if (id == null || id.isEmpty() || id.length() > 255) {
            return "it must have 1-255 characters, had " + (id == null ? "null" : id.length() + " characters");
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return "it has a control character at position " + i;
            }
        }
        return null;
    }

    /** The message as the quarantine keeps it: payload, the record's headers and its coordinates. */
    private static InboxMessage quarantineMessage(ConsumerRecord<?, ?> r, String id, byte[] payload) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : r.headers()) {
            if (h.key() != null && !h.key().isEmpty()) {
                headers.put(h.key(), h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
            }
        }
        headers.put("kafka-topic", r.topic());
        headers.put("kafka-partition", Integer.toString(r.partition()));
        headers.put("kafka-offset", Long.toString(r.offset()));
        headers.put("kafka-timestamp", Long.toString(r.timestamp()));
        if (r.key() instanceof String key) {
            headers.put("kafka-key", key);
        }
        return InboxMessage.of(id, payload == null ? new byte[0] : payload, headers);
    }

    /** byte[], ByteBuffer and String values as they are (String as UTF-8); anything else by its {@code toString()}. */
    static byte[] defaultPayload(ConsumerRecord<?, ?> r) {
        Object value = r.value();
        if (value == null) {
            return new byte[0];
        }
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        if (value instanceof ByteBuffer buffer) {
            ByteBuffer copy = buffer.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            return bytes;
        }
        return value.toString().getBytes(StandardCharsets.UTF_8);
    }

    // ---- chores -----------------------------------------------------------------------------------------------

    /** A handler switched the connection to auto-commit: its work committed early, out of the inbox's control. */
    private static final class HandlerCommitted extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        HandlerCommitted() {
            super("the handler switched the connection to auto-commit, which committed its work early; handlers must not commit");
        }
    }

    private static void requireTransaction(Connection conn) throws SQLException {
        if (conn.getAutoCommit()) {
            throw new HandlerCommitted();
        }
    }

    private static void rollbackQuietly(Connection conn, Throwable failure) {
        try {
            conn.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private static void restoreQuietly(Connection conn, boolean autoCommit) {
        if (autoCommit) {
            try {
                conn.setAutoCommit(true);
            } catch (SQLException e) {
                // The pool discards a broken connection.
            }
        }
    }

    private void closeQuietly(Consumer<K, V> c) {
        try {
            c.close(CloseOptions.timeout(closeTimeout));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": closing the Kafka consumer failed", e);
        }
    }

    private static void guard(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a KafkaConsumerListener threw; ignored", e);
        }
    }

    static String checkConsumerName(String consumer, String what) {
        if (consumer == null || consumer.isEmpty() || consumer.length() > 200) {
            throw new IllegalArgumentException(what + " must have 1-200 characters, was "
                    + (consumer == null ? "null" : consumer.length() + " characters"));
        }
        for (int i = 0; i < consumer.length(); i++) {
            char ch = consumer.charAt(i);
            if (ch < 0x21 || ch > 0x7e) {
                throw new IllegalArgumentException(what + " must be visible ASCII (no spaces), has another character at position " + i);
            }
        }
        return consumer;
    }

    private static Duration checkDuration(String what, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, what + " is null");
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    // ---- builder ------------------------------------------------------------------------------------------------

    /** Settings of an {@link IdempotentKafkaConsumer}; each setter validates its value. */
    public static final class Builder<K, V> {
        private final DataSource dataSource;
        private final Inbox inbox;
        private Map<String, Object> config;
        private Deserializer<K> keyDeserializer;
        private Deserializer<V> valueDeserializer;
        private Supplier<? extends Consumer<K, V>> factory;
        private final List<String> topics = new ArrayList<>();
        private String consumerName;
        private MessageIdExtractor messageIds = MessageIdExtractor.standard();
        private KafkaRecordHandler<K, V> handler;
        private Duration pollTimeout = Duration.ofMillis(500);
        private Duration commitTimeout = Duration.ofSeconds(30);
        private Duration retryBackoff = Duration.ofSeconds(1);
        private Duration closeTimeout = Duration.ofSeconds(30);
        private KafkaOffsetStore offsetStore;
        private KafkaConsumerListener listener = KafkaConsumerListener.noop();
        private Function<? super ConsumerRecord<K, V>, byte[]> quarantinePayload = IdempotentKafkaConsumer::defaultPayload;

        private Builder(DataSource dataSource, Inbox inbox) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource is null");
            this.inbox = Objects.requireNonNull(inbox, "inbox is null");
        }

        /**
         * The Kafka consumer's configuration; the loop makes its {@link KafkaConsumer} from it. Must
         * have {@code bootstrap.servers} and {@code group.id}, and deserializers unless given with
         * {@link #deserializers}. {@code enable.auto.commit} is set to false (giving true is an error).
         */
        public Builder<K, V> consumerConfig(Map<String, ?> config) {
            Objects.requireNonNull(config, "consumer config is null");
            Map<String, Object> copy = new HashMap<>(config);
            Object autoCommit = copy.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
            if (autoCommit != null && !"false".equalsIgnoreCase(String.valueOf(autoCommit).trim())) {
                throw new IllegalArgumentException("enable.auto.commit must be false (offsets are committed after the database commit), was "
                        + autoCommit);
            }
            Object groupId = copy.get(ConsumerConfig.GROUP_ID_CONFIG);
            if (groupId == null || String.valueOf(groupId).isBlank()) {
                throw new IllegalArgumentException("consumer config needs a group.id");
            }
            if (!copy.containsKey(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
                throw new IllegalArgumentException("consumer config needs bootstrap.servers");
            }
            copy.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            this.config = copy;
            this.factory = null;
            return this;
        }

        /** Deserializers for the consumer made from {@link #consumerConfig}. */
        public Builder<K, V> deserializers(Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
            this.keyDeserializer = Objects.requireNonNull(keyDeserializer, "keyDeserializer is null");
            this.valueDeserializer = Objects.requireNonNull(valueDeserializer, "valueDeserializer is null");
            return this;
        }

        /**
         * Instead of {@link #consumerConfig}: makes the Kafka consumer (called once, by {@link #run()}).
         * It must have a {@code group.id} and {@code enable.auto.commit=false}, and must not be
         * subscribed yet.
         */
        public Builder<K, V> consumer(Supplier<? extends Consumer<K, V>> factory) {
            this.factory = Objects.requireNonNull(factory, "consumer factory is null");
            this.config = null;
            return this;
        }

        /** The topics to subscribe to; at least one. */
        public Builder<K, V> topics(String... topics) {
            return topics(List.of(Objects.requireNonNull(topics, "topics is null")));
        }

        public Builder<K, V> topics(Collection<String> topics) {
            Objects.requireNonNull(topics, "topics is null");
            List<String> checked = new ArrayList<>();
            for (String t : topics) {
                if (t == null || t.isBlank()) {
                    throw new IllegalArgumentException("topic names must not be null or blank");
                }
                checked.add(t);
            }
            if (checked.isEmpty()) {
                throw new IllegalArgumentException("at least one topic is needed");
            }
            this.topics.clear();
            this.topics.addAll(checked);
            return this;
        }

        /** The inbox consumer name that scopes message ids; default: the group id. 1–200 visible ASCII characters. */
        public Builder<K, V> consumerName(String consumerName) {
            this.consumerName = checkConsumerName(consumerName, "consumer name");
            return this;
        }

        /** Default {@link MessageIdExtractor#standard()}: header {@code message-id}, else {@code topic-partition-offset}. */
        public Builder<K, V> messageIds(MessageIdExtractor messageIds) {
            this.messageIds = Objects.requireNonNull(messageIds, "messageIds is null");
            return this;
        }

        /** The work for each new message; required. */
        public Builder<K, V> handler(KafkaRecordHandler<K, V> handler) {
            this.handler = Objects.requireNonNull(handler, "handler is null");
            return this;
        }

        /** How long one poll waits for records: 1 ms to 1 min, default 500 ms. */
        public Builder<K, V> pollTimeout(Duration pollTimeout) {
            this.pollTimeout = checkDuration("pollTimeout", pollTimeout, Duration.ofMillis(1), Duration.ofMinutes(1));
            return this;
        }

        /** How long a {@code commitSync} may take: 1 ms to 10 min, default 30 s. */
        public Builder<K, V> commitTimeout(Duration commitTimeout) {
            this.commitTimeout = checkDuration("commitTimeout", commitTimeout, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

        /**
         * How long a partition pauses after a record's handler failed before the record is delivered
         * again, and how long the loop waits after a database failure: 0 to 1 min, default 1 s.
         */
        public Builder<K, V> retryBackoff(Duration retryBackoff) {
            this.retryBackoff = checkDuration("retryBackoff", retryBackoff, Duration.ZERO, Duration.ofMinutes(1));
            return this;
        }

        /** How long {@link #close()} waits for the loop and the Kafka consumer to close: 0 to 10 min, default 30 s. */
        public Builder<K, V> closeTimeout(Duration closeTimeout) {
            this.closeTimeout = checkDuration("closeTimeout", closeTimeout, Duration.ZERO, Duration.ofMinutes(10));
            return this;
        }

        /**
         * Keeps the consumed offsets in {@code store}, in the same transaction as the claims and the
         * handler's work, and seeks to them on assignment; nothing is committed to Kafka. The store
         * must be in the inbox's database and migrated. If the stored offsets cannot be read when
         * partitions are assigned (3 tries), the loop stops with that error rather than start a
         * partition at a wrong position.
         */
        public Builder<K, V> offsetsInDatabase(KafkaOffsetStore store) {
            this.offsetStore = Objects.requireNonNull(store, "store is null");
            return this;
        }

        public Builder<K, V> listener(KafkaConsumerListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        /**
         * The bytes the quarantine keeps of a failed record, for inspection and
         * {@link Inbox#replay}; default: byte[], ByteBuffer and String values as they are (UTF-8),
         * anything else by {@code toString()}.
         */
        public Builder<K, V> quarantinePayload(Function<? super ConsumerRecord<K, V>, byte[]> quarantinePayload) {
            this.quarantinePayload = Objects.requireNonNull(quarantinePayload, "quarantinePayload is null");
            return this;
        }

        /**
         * @throws IllegalStateException if the handler, the topics, or the consumer (config or
         *                               factory) are missing, or deserializers are given without a config
         * @throws IllegalArgumentException if no consumer name is set and the group id is not a valid one
         */
        public IdempotentKafkaConsumer<K, V> build() {
            if (handler == null) {
                throw new IllegalStateException("a handler is required");
            }
            if (topics.isEmpty()) {
                throw new IllegalStateException("at least one topic is required");
            }
            if (config == null && factory == null) {
                throw new IllegalStateException("a consumer config or a consumer factory is required");
            }
            if (config == null && keyDeserializer != null) {
                throw new IllegalStateException("deserializers are only used with a consumer config, not with a consumer factory");
            }
            if (config != null && keyDeserializer == null
                    && (!config.containsKey(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG)
                    || !config.containsKey(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG))) {
                throw new IllegalStateException("the consumer config needs key.deserializer and value.deserializer, or set deserializers(...)");
            }
            if (consumerName == null && config != null) {
                checkConsumerName(String.valueOf(config.get(ConsumerConfig.GROUP_ID_CONFIG)),
                        "the group id (used as the inbox consumer name; set consumerName)");
            }
            return new IdempotentKafkaConsumer<>(this);
        }

        private Supplier<? extends Consumer<K, V>> consumerFactory() {
            if (factory != null) {
                return factory;
            }
            Map<String, Object> props = Map.copyOf(config);
            Deserializer<K> kd = keyDeserializer;
            Deserializer<V> vd = valueDeserializer;
            return () -> kd != null ? new KafkaConsumer<>(props, kd, vd) : new KafkaConsumer<>(props);
        }

        private String consumerName() {
            if (consumerName != null || config == null) {
                return consumerName;
            }
            return String.valueOf(config.get(ConsumerConfig.GROUP_ID_CONFIG));
        }
    }
}
