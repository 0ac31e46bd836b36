package dev.idem.demo.ledger;

import dev.idem.kafka.KafkaHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Payment events in the outbox publisher's format, sent with a plain producer. */
final class Events {
    private Events() {
    }

    /** Key = payment id, value = the event's JSON, header {@code message-id}. */
    static ProducerRecord<String, byte[]> payment(String topic, String paymentId, long amount, String messageId) {
        String json = "{\"paymentId\":\"" + paymentId + "\",\"card\":\"card-" + paymentId + "\",\"amount\":" + amount
                + ",\"currency\":\"EUR\",\"chargeId\":\"ch_" + paymentId + "\"}";
        return record(topic, paymentId, json.getBytes(StandardCharsets.UTF_8), messageId);
    }

    static ProducerRecord<String, byte[]> record(String topic, String key, byte[] value, String messageId) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, value);
        record.headers().add(KafkaHeaders.MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
        record.headers().add(KafkaHeaders.EVENT_TYPE, "payment.charged".getBytes(StandardCharsets.UTF_8));
        return record;
    }

    /** {@code count} events {@code <prefix>-0 …}, message ids {@code msg-<prefix>-<i>}. */
    static List<ProducerRecord<String, byte[]>> payments(String topic, String prefix, int count) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(payment(topic, prefix + "-" + i, 100 + i, "msg-" + prefix + "-" + i));
        }
        return records;
    }

    /** Sends in order and waits for every acknowledgement. */
    static List<RecordMetadata> send(List<ProducerRecord<String, byte[]>> records) throws Exception {
        List<RecordMetadata> sent = new ArrayList<>();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestBroker.broker().bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 0), new StringSerializer(), new ByteArraySerializer())) {
            for (ProducerRecord<String, byte[]> record : records) {
                sent.add(producer.send(record).get(30, TimeUnit.SECONDS));
            }
        }
        return sent;
    }
}
