package dev.idem.kafka;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.consumer.ConsumerBuilder;
import dev.idem.inbox.consumer.ConsumerLoop;
import dev.idem.inbox.consumer.InboxConsumer;
import dev.idem.inbox.consumer.MessageIdExtractor;
import dev.idem.spi.Arguments;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * A Kafka consumer loop whose records have their effect <b>exactly once</b>: each poll's records are
 * claimed in the {@link Inbox} with <b>one</b> batch statement, the handler runs for the new message
 * ids only, and the claims and the handler's writes commit in one database transaction; only
 * <b>after</b> that commit are the offsets committed to Kafka ({@code commitSync}). A crash between
 * the two means a redelivery, which the inbox answers as a duplicate.
 *
 * <pre>{@code
 * IdempotentKafkaConsumer<String, String> consumer = IdempotentKafkaConsumer.<String, String>builder(inbox)
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
 * <li>Every record's message id is told by the {@link MessageIdExtractor} (default {@link KafkaMessageIds#standard()}: the
 *     {@code message-id} header the outbox relay writes, else {@code topic-partition-offset}).</li>
 * <li>One transaction, driven by the shared {@link ConsumerLoop}: the claims of all ids, the handler for each new id (once per id, in
 *     partition order), in the offsets-in-database mode the partitions' next offsets, commit.</li>
 * <li>{@code commitSync} of the next offsets (Kafka mode).</li>
 * </ol>
 * If the handler throws, the poll's transaction is rolled back and its records are redone one per
 * transaction, in order, up to the first that fails (the batch is ordered: nothing overtakes a failed record; the records behind it are polled again). A record whose handler throws has its attempt counted by the
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
 * <h2>Operations</h2>
 * As every broker's consumer ({@link InboxConsumer}): {@link #isRunning()}, {@link #failure()},
 * {@link #acknowledged()} (records settled, whose offsets moved past them), {@link #refused()} (records
 * without a usable message id, counted as failed attempts as described above), and {@link #replay}, which
 * hands the fixed handler the record rebuilt from the quarantine: the kept payload and the
 * {@code kafka-key} header (a String key) deserialized with the consumer's deserializers, its coordinates
 * from the {@code kafka-*} headers. A replay needs those deserializers, so it works for a consumer made
 * from {@link Builder#consumerConfig}, not from a consumer factory.
 *
 * <p>One instance runs once: {@link #run()} on the caller's thread or {@link #start()} on a new one;
 * run several instances (in one group) for more partitions in parallel. The claims, the handler's
 * writes and stored offsets commit in the inbox's database.
 */
public final class IdempotentKafkaConsumer<K, V> extends InboxConsumer<ConsumerRecord<K, V>, IdempotentKafkaConsumer<K, V>> {
    private final List<String> topics;
    private final KafkaOffsetStore offsetStore;

    private IdempotentKafkaConsumer(Builder<K, V> b, KafkaPollLoop<K, V> loop) {
        super(loop, b.closeTimeout);
        this.topics = List.copyOf(b.topics);
        this.offsetStore = b.offsetStore;
    }

    /** A consumer whose records are deduplicated by {@code inbox}; the handler's writes, the claims and stored offsets commit in its database. */
    public static <K, V> Builder<K, V> builder(Inbox inbox) {
        return new Builder<>(inbox);
    }

    /**
     * Starts the loop on a new daemon thread named {@code idem-kafka-<consumer name>}; the Kafka consumer
     * is made and subscribed there. What ends the loop otherwise than {@link #close()} is in {@link #failure()}.
     */
    @Override
    public IdempotentKafkaConsumer<K, V> start() {
        try {
            return super.start();
        } catch (IOException e) {
            // Kafka is subscribed on the loop's thread, so starting refuses nothing.
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected String threadName() {
        return "idem-kafka-" + (consumerName() == null ? "consumer" : consumerName());
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
        return "IdempotentKafkaConsumer[" + (consumerName() == null ? "?" : consumerName()) + ", topics=" + topics
                + (offsetStore != null ? ", offsets in " + offsetStore : "") + "]";
    }


    // ---- builder ------------------------------------------------------------------------------------------------

    /**
     * Settings of an {@link IdempotentKafkaConsumer}: Kafka's own here, the ones every consumer has in
     * {@link ConsumerBuilder} (the consumer name defaults to the group id). Each setter validates its value.
     */
    public static final class Builder<K, V> extends ConsumerBuilder<ConsumerRecord<K, V>, Builder<K, V>> {
        private Map<String, Object> config;
        private Deserializer<K> keyDeserializer;
        private Deserializer<V> valueDeserializer;
        private Supplier<? extends Consumer<K, V>> factory;
        final List<String> topics = new ArrayList<>();
        MessageIdExtractor<? super ConsumerRecord<K, V>> messageIds = KafkaMessageIds.standard();
        Duration pollTimeout = Duration.ofMillis(500);
        Duration commitTimeout = Duration.ofSeconds(30);
        Duration retryBackoff = Duration.ofSeconds(1);
        Duration closeTimeout = Duration.ofSeconds(30);
        KafkaOffsetStore offsetStore;
        Function<? super ConsumerRecord<K, V>, byte[]> quarantinePayload = KafkaPollLoop::defaultPayload;

        private Builder(Inbox inbox) {
            super(inbox, KafkaMessageIds.standard());
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

        /** The topics to subscribe to: at least one, none blank. */
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

        /** Default {@link KafkaMessageIds#standard()}: header {@code message-id}, else {@code topic-partition-offset}. */
        @Override
        public Builder<K, V> messageIdExtractor(MessageIdExtractor<? super ConsumerRecord<K, V>> messageIdExtractor) {
            this.messageIds = Objects.requireNonNull(messageIdExtractor, "messageIdExtractor is null");
            return super.messageIdExtractor(messageIdExtractor);
        }

        /** How long one poll waits for records: 1 ms to 1 min, default 500 ms. */
        public Builder<K, V> pollTimeout(Duration pollTimeout) {
            this.pollTimeout = Arguments.between("pollTimeout", pollTimeout, Duration.ofMillis(1), Duration.ofMinutes(1));
            return this;
        }

        /** How long a {@code commitSync} may take: 1 ms to 10 min, default 30 s. */
        public Builder<K, V> commitTimeout(Duration commitTimeout) {
            this.commitTimeout = Arguments.between("commitTimeout", commitTimeout, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

        /**
         * How long a partition pauses after a record's handler failed before the record is delivered
         * again, and (as {@link #storeFailureBackoff}) how long the loop waits after a database failure:
         * 0 to 1 min, default 1 s.
         */
        public Builder<K, V> retryBackoff(Duration retryBackoff) {
            this.retryBackoff = Arguments.between("retryBackoff", retryBackoff, Duration.ZERO, Duration.ofMinutes(1));
            storeFailureBackoffChecked(retryBackoff);
            return this;
        }

        /** How long {@link #close()} waits for the loop and the Kafka consumer to close: 0 to 10 min, default 30 s. */
        public Builder<K, V> closeTimeout(Duration closeTimeout) {
            this.closeTimeout = Arguments.between("closeTimeout", closeTimeout, Duration.ZERO, Duration.ofMinutes(10));
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
            if (handler() == null) {
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
            if (consumerName() == null && config != null) {
                consumerName(checkConsumerName(String.valueOf(config.get(ConsumerConfig.GROUP_ID_CONFIG)),
                        "the group id (used as the inbox consumer name; set consumerName)"));
            }
            return new IdempotentKafkaConsumer<>(this, new KafkaPollLoop<>(this, consumerFactory(), replayDeserializer(true),
                    replayDeserializer(false)));
        }

        /** The consumer's key or value deserializer, for a replay: the one given, else one made from the config; null with a factory. */
        @SuppressWarnings("unchecked")
        private <T> Deserializer<T> replayDeserializer(boolean isKey) {
            if (config == null) {
                return null;
            }
            Deserializer<?> given = isKey ? keyDeserializer : valueDeserializer;
            if (given != null) {
                return (Deserializer<T>) given;
            }
            Object type = config.get(isKey ? ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG : ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
            Deserializer<T> made;
            try {
                made = type instanceof Class<?> c ? Utils.newInstance(c, Deserializer.class) : Utils.newInstance(String.valueOf(type).trim(), Deserializer.class);
            } catch (ClassNotFoundException | KafkaException e) {
                throw new IllegalArgumentException("the consumer config's " + (isKey ? "key" : "value") + " deserializer cannot be made", e);
            }
            made.configure(config, isKey);
            return made;
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
    }
}
