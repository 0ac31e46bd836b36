package dev.idem.kafka;

import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.consumer.ConsumerBuilder;
import dev.idem.inbox.consumer.ConsumerLoop;
import dev.idem.inbox.consumer.MessageIdExtractor;
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
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * An {@link IdempotentKafkaConsumer}'s {@link ConsumerLoop}: it owns the Kafka client (made, subscribed
 * and polled on the loop's thread), its rebalance listener, and the positions of its partitions. A batch
 * is ordered; what it settles moves its partitions' offsets on (committed to Kafka after the database
 * commit, or stored with the claims), what it leaves (a failure, the records behind it) seeks them back
 * after the batch, and a failed record also pauses its partition for {@code retryBackoff}.
 */
final class KafkaPollLoop<K, V> extends ConsumerLoop<ConsumerRecord<K, V>> {
    private static final System.Logger LOG = System.getLogger("dev.idem.kafka");
    private static final int STORE_READ_TRIES = 3;

    private final Supplier<? extends Consumer<K, V>> consumerFactory;
    private final List<String> topics;
    private final MessageIdExtractor<? super ConsumerRecord<K, V>> messageIds;
    private final Duration pollTimeout;
    private final Duration commitTimeout;
    private final Duration retryBackoff;
    private final Duration closeTimeout;
    private final KafkaOffsetStore offsetStore;
    private final Function<? super ConsumerRecord<K, V>, byte[]> quarantinePayload;
    private final Deserializer<K> replayKeys;
    private final Deserializer<V> replayValues;

    /**
     * @param replayKeys   the consumer's key deserializer for {@link #rebuild}; null where it is not known (a consumer factory)
     * @param replayValues the consumer's value deserializer, likewise
     */
    KafkaPollLoop(IdempotentKafkaConsumer.Builder<K, V> b, Supplier<? extends Consumer<K, V>> consumerFactory,
                  Deserializer<K> replayKeys, Deserializer<V> replayValues) {
        super(b, "topics " + b.topics);
        this.consumerFactory = consumerFactory;
        this.topics = List.copyOf(b.topics);
        this.messageIds = b.messageIds;
        this.pollTimeout = b.pollTimeout;
        this.commitTimeout = b.commitTimeout;
        this.retryBackoff = b.retryBackoff;
        this.closeTimeout = b.closeTimeout;
        this.offsetStore = b.offsetStore;
        this.quarantinePayload = b.quarantinePayload;
        this.replayKeys = replayKeys;
        this.replayValues = replayValues;
    }

    private Consumer<K, V> consumer;
    private String group;
    private String name;
    private boolean abandoned;
    /** Settled offsets not yet committed to Kafka. */
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
    private final Map<TopicPartition, Long> pausedUntil = new HashMap<>();
    // This batch's answers, applied in afterFetch.
    private final Map<TopicPartition, OffsetAndMetadata> advanced = new HashMap<>();
    private final Map<TopicPartition, Long> rewinds = new HashMap<>();
    private final Set<TopicPartition> toPause = new HashSet<>();
    private final Map<String, Long> stored = new HashMap<>();
    /** Records this batch moved past (settled), counted as acknowledged in afterFetch. */
    private int settled;

    @Override
    protected String open(String consumerName) {
        consumer = Objects.requireNonNull(consumerFactory.get(), "the consumer factory returned null");
        group = consumer.groupMetadata().groupId();
        name = consumerName != null ? consumerName
                : ConsumerBuilder.checkConsumerName(group, "the group id (used as the inbox consumer name; set consumerName)");
        consumer.subscribe(topics, new Rebalance());
        return name;
    }

    @Override
    protected List<ConsumerRecord<K, V>> fetch() {
        resumeDue();
        ConsumerRecords<K, V> records;
        try {
            records = consumer.poll(pollTimeout);
        } catch (WakeupException e) {
            return List.of();
        } catch (RecordDeserializationException e) {
            undeserializable(e);
            return List.of();
        }
        List<ConsumerRecord<K, V>> batch = new ArrayList<>(records.count());
        for (TopicPartition tp : records.partitions()) {
            batch.addAll(records.records(tp));
        }
        return batch;
    }

    @Override
    protected boolean ordered() {
        return true;
    }

    @Override
    protected byte[] body(ConsumerRecord<K, V> r) {
        try {
            return quarantinePayload.apply(r);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": the quarantine payload function failed; keeping an empty payload", e);
            return null;
        }
    }

    @Override
    protected Map<String, String> headers(ConsumerRecord<K, V> r) {
        return quarantineHeaders(r);
    }

    @Override
    protected String missingIdHint() {
        return "the message id extractor found none; give records a message-id header";
    }

    @Override
    protected String describe(ConsumerRecord<K, V> r) {
        return "record " + KafkaMessageIds.fallbackId(r);
    }

    @Override
    protected String refusal() {
        return "It is counted as a failed attempt under its coordinates and quarantined after the inbox's maxAttempts.";
    }

    /** A partition cannot skip a record: one without a usable id counts as failed until it is quarantined. */
    @Override
    protected void refuse(ConsumerRecord<K, V> r, String reason) {
        InboxOutcome outcome = countFailure(r, InboxMessage.of(KafkaMessageIds.fallbackId(r), orEmpty(body(r)), quarantineHeaders(r)),
                new IllegalArgumentException(reason));
        if (outcome != null && outcome.settled()) {  // quarantined, or processed before (its commit's answer was lost)
            ack(r);
        } else {
            rewind(r, true);
        }
    }

    @Override
    protected void ack(ConsumerRecord<K, V> r) {
        advanced.merge(new TopicPartition(r.topic(), r.partition()), next(r), (a, b) -> a.offset() >= b.offset() ? a : b);
        settled++;
    }

    @Override
    protected void quarantined(ConsumerRecord<K, V> r) {
        ack(r);  // the inbox keeps it; the partition moves past it
    }

    @Override
    protected void redeliver(ConsumerRecord<K, V> r) {
        rewind(r, true);
    }

    @Override
    protected void unattempted(ConsumerRecord<K, V> r) {
        rewind(r, false);
    }

    @Override
    protected void redeliverAll(List<ConsumerRecord<K, V>> records) {
        records.forEach(r -> rewind(r, false));  // the loop waited out the store-failure backoff already
        stored.clear();
    }

    @Override
    protected void positions(Connection connection, List<ConsumerRecord<K, V>> settled) throws SQLException {
        if (offsetStore == null) {
            return;
        }
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (ConsumerRecord<K, V> r : settled) {
            offsets.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
        }
        offsetStore.write(connection, group, offsets);
        offsets.forEach((tp, o) -> stored.merge(tp.toString(), o, Math::max));
    }

    @Override
    protected void afterFetch() {
        rewinds.forEach((tp, offset) -> {
            consumer.seek(tp, offset);
            advanced.computeIfPresent(tp, (p, o) -> o.offset() <= offset ? o : null);
        });
        if (!toPause.isEmpty() && retryBackoff.toMillis() > 0) {
            consumer.pause(toPause);
            toPause.forEach(tp -> pausedUntil.put(tp, System.nanoTime() + retryBackoff.toNanos()));
        }
        if (offsetStore == null) {
            pending.putAll(advanced);
        } else if (!stored.isEmpty()) {
            positionsCommitted(Map.copyOf(stored), true);
        }
        acknowledged(settled);
        settled = 0;
        advanced.clear();
        rewinds.clear();
        toPause.clear();
        stored.clear();
        if (!pending.isEmpty()) {
            commitPending();
        }
    }

    @Override
    protected void wakeup() {
        Consumer<K, V> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    @Override
    protected void release(Throwable failure) {
        if (failure == null) {
            // A wakeup meant for a blocking call may hit the first commit; the second one then goes through.
            for (int i = 0; i < 2 && !pending.isEmpty(); i++) {
                commitPending();
            }
        } else {
            abandoned = true;  // nothing more is committed, also not on the revocation during close
            pending.clear();
        }
        if (consumer != null) {
            try {
                consumer.close(CloseOptions.timeout(closeTimeout));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": closing the Kafka consumer failed", e);
            }
        }
    }

    private void rewind(ConsumerRecord<?, ?> r, boolean pause) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        rewinds.merge(tp, r.offset(), Math::min);
        if (pause) {
            toPause.add(tp);
        }
    }

    /**
     * A record the deserializers refused: the consumer stays at it. Counted like a handler failure,
     * under the id the extractor tells from its raw bytes and headers (the listener gets no record);
     * once quarantined, the partition moves past it.
     */
    private void undeserializable(RecordDeserializationException e) {
        TopicPartition tp = e.topicPartition();
        byte[] key = bytes(e.keyBuffer());
        byte[] value = bytes(e.valueBuffer());
        ConsumerRecord<byte[], byte[]> raw = new ConsumerRecord<>(tp.topic(), tp.partition(), e.offset(), e.timestamp(),
                e.timestampType(), key == null ? -1 : key.length, value == null ? -1 : value.length, key, value,
                e.headers() == null ? new RecordHeaders() : e.headers(), Optional.empty());
        String id = rawId(raw);
        InboxOutcome outcome = countFailure(null, InboxMessage.of(id, orEmpty(value), quarantineHeaders(raw)), e);
        if (outcome != null && outcome.settled()) {  // quarantined, or processed before (its commit's answer was lost)
            advanced.put(tp, new OffsetAndMetadata(e.offset() + 1));
            settled++;
            consumer.seek(tp, e.offset() + 1);
        } else {
            rewind(raw, true);
        }
        afterFetch();
    }

    /** The extractor's id of a raw record, if it is one the inbox accepts, else its coordinates. */
    @SuppressWarnings("unchecked")
    private String rawId(ConsumerRecord<byte[], byte[]> raw) {
        // The extractors of this module read headers and coordinates only, never the key or value.
        return KafkaMessageIds.idOrFallback((MessageIdExtractor<ConsumerRecord<?, ?>>) messageIds, raw);
    }

    /** Commits the settled offsets; on a failure that a later try may overcome, keeps those of partitions still assigned. */
    private void commitPending() {
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(pending);
        try {
            consumer.commitSync(offsets, commitTimeout);
            offsets.forEach((tp, o) -> pending.remove(tp, o));
            positionsCommitted(byName(offsets), false);
        } catch (WakeupException e) {
            // close() woke the consumer; the loop ends and tries again.
        } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
            LOG.log(System.Logger.Level.INFO, "consumer " + name + ": offset commit failed (" + e.getClass().getSimpleName()
                    + "); kept for the next try or the revocation of the partitions");
            pending.keySet().retainAll(consumer.assignment());
        }
    }

    private void resumeDue() {
        long now = System.nanoTime();
        List<TopicPartition> due = new ArrayList<>();
        pausedUntil.forEach((tp, until) -> {
            if (now - until >= 0) {
                due.add(tp);
            }
        });
        if (!due.isEmpty()) {
            due.forEach(pausedUntil::remove);
            due.retainAll(consumer.assignment());
            consumer.resume(due);
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            pausedUntil.keySet().removeAll(partitions);
            Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>(pending);
            mine.keySet().retainAll(partitions);
            if (!abandoned && !mine.isEmpty()) {
                commitOnRevocation(mine);
            }
            pending.keySet().removeAll(partitions);
            assignment(names(partitions), false);
        }

        private void commitOnRevocation(Map<TopicPartition, OffsetAndMetadata> offsets) {
            for (int i = 0; i < 2; i++) {
                try {
                    consumer.commitSync(offsets, commitTimeout);
                    positionsCommitted(byName(offsets), false);
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
            assignment(names(partitions), false);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (offsetStore != null && !partitions.isEmpty()) {
                readStoredOffsets(partitions).forEach(consumer::seek);
            }
            assignment(names(partitions), true);
        }

        /** Retries a few times: starting a partition at the wrong position is worse than stopping. */
        private Map<TopicPartition, Long> readStoredOffsets(Collection<TopicPartition> partitions) {
            for (int i = 1; ; i++) {
                try {
                    return offsetStore.read(group, partitions);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": could not read the stored offsets (try " + i + ")", e);
                    if (i == STORE_READ_TRIES) {
                        throw e;
                    }
                    sleep(retryBackoff);
                }
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
    /**
     * The record rebuilt from the quarantined payload and headers with the consumer's deserializers: its
     * coordinates and timestamp from the {@code kafka-*} headers, the other headers as they were, and the
     * {@code message-id} header set to the message's id.
     *
     * @throws IllegalStateException if the consumer was made by a factory, whose deserializers are not known
     */
    @Override
    protected ConsumerRecord<K, V> rebuild(InboxMessage m) {
        if (replayValues == null) {
            throw new IllegalStateException("a replay deserializes the quarantined payload with the consumer's deserializers, "
                    + "which a consumer factory does not tell; build the consumer from a consumerConfig to replay with it");
        }
        Map<String, String> h = m.headers();
        String topic = h.getOrDefault("kafka-topic", topics.get(0));
        RecordHeaders headers = new RecordHeaders();
        h.forEach((name, value) -> {
            if (!name.startsWith("kafka-")) {
                headers.add(name, value.getBytes(StandardCharsets.UTF_8));
            }
        });
        if (headers.lastHeader(KafkaHeaders.MESSAGE_ID) == null) {
            headers.add(KafkaHeaders.MESSAGE_ID, m.id().getBytes(StandardCharsets.UTF_8));
        }
        byte[] keyBytes = h.containsKey("kafka-key") ? h.get("kafka-key").getBytes(StandardCharsets.UTF_8) : null;
        K key = keyBytes == null ? null : replayKeys.deserialize(topic, headers, keyBytes);
        byte[] payload = m.payload();
        V value = replayValues.deserialize(topic, headers, payload);
        return new ConsumerRecord<>(topic, Integer.parseInt(h.getOrDefault("kafka-partition", "-1")),
                Long.parseLong(h.getOrDefault("kafka-offset", "-1")), Long.parseLong(h.getOrDefault("kafka-timestamp", "-1")),
                TimestampType.CREATE_TIME, keyBytes == null ? -1 : keyBytes.length, payload.length, key, value, headers, Optional.empty());
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
            return bytes(buffer);
        }
        return value.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static OffsetAndMetadata next(ConsumerRecord<?, ?> r) {
        return new OffsetAndMetadata(r.offset() + 1, r.leaderEpoch(), "");
    }
    private static Map<String, Long> byName(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<String, Long> out = new HashMap<>();
        offsets.forEach((tp, o) -> out.put(tp.toString(), o.offset()));
        return out;
    }
    private static List<String> names(Collection<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::toString).toList();
    }
    private static byte[] orEmpty(byte[] bytes) {
        return bytes == null ? new byte[0] : bytes;
    }
    static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        ByteBuffer copy = buffer.duplicate();
        byte[] out = new byte[copy.remaining()];
        copy.get(out);
        return out;
    }
    /** The headers the quarantine keeps: the record's headers and its coordinates. */
    private static Map<String, String> quarantineHeaders(ConsumerRecord<?, ?> r) {
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
        return headers;
    }
}
