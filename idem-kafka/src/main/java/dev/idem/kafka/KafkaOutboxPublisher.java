package dev.idem.kafka;

import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxPublisher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes outbox events to Kafka for an {@link dev.idem.outbox.OutboxRelay}, on the idempotent
 * producer ({@code enable.idempotence=true}, {@code acks=all}):
 * <ul>
 * <li>key = the aggregate id, so one aggregate's events land in one partition, in sequence order;</li>
 * <li>value = the payload;</li>
 * <li>headers: the event's own, then {@code message-id} (the stable id, the same on every publish of
 *     the event), {@code event-type}, {@code aggregate-type}, {@code aggregate-id} and
 *     {@code sequence}, UTF-8 encoded (an event header of one of those names is left out);</li>
 * <li>{@link #publish} returns once the broker acknowledged the record (all in-sync replicas), and
 *     throws if it did not within {@code sendTimeout}: the relay then retries the event with backoff.</li>
 * </ul>
 * The idempotent producer keeps its own retries free of duplicates; a relay that crashes after the
 * broker took an event and before marking it sent publishes it again with the same
 * {@code message-id}, which an {@link IdempotentKafkaConsumer} skips.
 *
 * <pre>{@code
 * KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", servers))
 *         .topic("payments").build();
 * OutboxRelay relay = OutboxRelay.builder(outbox, publisher).build().start();
 * }</pre>
 *
 * Thread-safe (the Kafka producer is).
 */
public final class KafkaOutboxPublisher implements OutboxPublisher, AutoCloseable {
    private final Producer<String, byte[]> producer;
    private final boolean ownsProducer;
    private final Function<OutboxMessage, String> topics;
    private final Duration sendTimeout;

    private KafkaOutboxPublisher(Builder b) {
        this.producer = b.producer != null ? b.producer : new KafkaProducer<>(b.config, new StringSerializer(), new ByteArraySerializer());
        this.ownsProducer = b.producer == null;
        this.topics = b.topics;
        this.sendTimeout = b.sendTimeout;
    }

    /**
     * A publisher on a {@link KafkaProducer} it makes from {@code producerConfig} (at least
     * {@code bootstrap.servers}) and closes on {@link #close()}. Idempotence and {@code acks=all} are
     * set; giving {@code enable.idempotence=false} or other acks is an error. Keys are serialized as
     * UTF-8 strings and values as bytes.
     */
    public static Builder builder(Map<String, ?> producerConfig) {
        Objects.requireNonNull(producerConfig, "producer config is null");
        Map<String, Object> config = new HashMap<>(producerConfig);
        Object idempotence = config.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idempotence != null && !"true".equalsIgnoreCase(String.valueOf(idempotence).trim())) {
            throw new IllegalArgumentException("enable.idempotence must be true for the outbox publisher, was " + idempotence);
        }
        Object acks = config.get(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !"all".equalsIgnoreCase(String.valueOf(acks).trim()) && !"-1".equals(String.valueOf(acks).trim())) {
            throw new IllegalArgumentException("acks must be all for the outbox publisher, was " + acks);
        }
        if (!config.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new IllegalArgumentException("producer config needs bootstrap.servers");
        }
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        config.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        return new Builder(config, null);
    }

    /**
     * A publisher on the caller's producer, which the caller configures ({@code enable.idempotence=true},
     * {@code acks=all}) and closes.
     */
    public static Builder builder(Producer<String, byte[]> producer) {
        return new Builder(null, Objects.requireNonNull(producer, "producer is null"));
    }

    /**
     * Sends the event and waits for the broker's acknowledgement.
     *
     * @throws java.util.concurrent.TimeoutException if it did not come within {@code sendTimeout}
     *         (the record may still be written; a retry republishes it with the same message id)
     * @throws Exception what the send failed with
     */
    @Override
    public void publish(OutboxMessage message) throws Exception {
        try {
            send(message).get(sendTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw cause(e);
        }
    }

    /** Sends without waiting; for callers that pipeline. The future fails with the send's cause. */
    public Future<RecordMetadata> send(OutboxMessage message) {
        Objects.requireNonNull(message, "message is null");
        RecordHeaders headers = new RecordHeaders();
        message.headers().forEach((name, value) -> {
            if (!KafkaHeaders.reserved(name)) {
                headers.add(name, value.getBytes(StandardCharsets.UTF_8));
            }
        });
        headers.add(KafkaHeaders.MESSAGE_ID, utf8(message.messageId().toString()));
        headers.add(KafkaHeaders.EVENT_TYPE, utf8(message.eventType()));
        headers.add(KafkaHeaders.AGGREGATE_TYPE, utf8(message.aggregateType()));
        headers.add(KafkaHeaders.AGGREGATE_ID, utf8(message.aggregateId()));
        headers.add(KafkaHeaders.SEQUENCE, utf8(Long.toString(message.sequence())));
        String topic = Objects.requireNonNull(topics.apply(message), "the topic function returned null");
        return producer.send(new ProducerRecord<>(topic, null, message.aggregateId(), message.payload(), headers));
    }

    /** Unwraps an {@link ExecutionException} so the relay records the broker's error. */
    static Exception cause(ExecutionException e) {
        return e.getCause() instanceof Exception c ? c : e;
    }

    public Duration sendTimeout() {
        return sendTimeout;
    }

    /** Closes the producer if this publisher made it. */
    @Override
    public void close() {
        if (ownsProducer) {
            producer.close(Duration.ofSeconds(30));
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "KafkaOutboxPublisher[sendTimeout=" + sendTimeout + "]";
    }

    /** Settings of a {@link KafkaOutboxPublisher}; each setter validates its value. */
    public static final class Builder {
        private final Map<String, Object> config;
        private final Producer<String, byte[]> producer;
        private Function<OutboxMessage, String> topics;
        private Duration sendTimeout = Duration.ofSeconds(30);

        private Builder(Map<String, Object> config, Producer<String, byte[]> producer) {
            this.config = config;
            this.producer = producer;
        }

        /** Every event to {@code topic}. */
        public Builder topic(String topic) {
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException("topic must not be null or blank");
            }
            this.topics = m -> topic;
            return this;
        }

        /** The topic per event, e.g. by {@link OutboxMessage#aggregateType()}. */
        public Builder topic(Function<OutboxMessage, String> topicOfEvent) {
            this.topics = Objects.requireNonNull(topicOfEvent, "topic function is null");
            return this;
        }

        /** How long {@link #publish} waits for the acknowledgement: 1 ms to 10 min, default 30 s. */
        public Builder sendTimeout(Duration sendTimeout) {
            Objects.requireNonNull(sendTimeout, "sendTimeout is null");
            if (sendTimeout.toMillis() < 1 || sendTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("sendTimeout must be between 1 ms and 10 min, was " + sendTimeout);
            }
            this.sendTimeout = sendTimeout;
            return this;
        }

        /** @throws IllegalStateException if no topic was set */
        public KafkaOutboxPublisher build() {
            if (topics == null) {
                throw new IllegalStateException("a topic is required");
            }
            return new KafkaOutboxPublisher(this);
        }
    }
}
