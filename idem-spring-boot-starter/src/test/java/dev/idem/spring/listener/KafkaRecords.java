package dev.idem.spring.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the in-process Kafka listener tests do on the broker: send records with ids, read a group's committed offsets, wait. */
final class KafkaRecords {
    private KafkaRecords() {
    }

    /** Sends records in the order given, each an id (its {@code message-id} header) and a value; returns once the broker has them. */
    static void send(String bootstrapServers, String topic, String... idsAndValues) {
        Map<String, Object> settings = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < idsAndValues.length; i += 2) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, idsAndValues[i + 1]);
                record.headers().add("message-id", idsAndValues[i].getBytes(StandardCharsets.UTF_8));
                producer.send(record);
            }
        }
    }

    /** The sum of the group's committed offsets over its partitions: the records it acknowledged. */
    static long committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        return offsets.values().stream().filter(Objects::nonNull).mapToLong(OffsetAndMetadata::offset).sum();
    }

    /** Returns once {@code condition} holds; fails naming {@code what} after 90 s. */
    static void await(String what, Callable<Boolean> condition) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (!condition.call()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within 90 s: " + what);
            }
            Thread.sleep(100);
        }
    }
}
