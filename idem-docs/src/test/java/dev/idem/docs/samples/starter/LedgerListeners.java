package dev.idem.docs.samples.starter;

import dev.idem.spring.IdempotentListener;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;

/** The @IdempotentListener sample of docs/messaging.md: existing Spring listener methods, made idempotent. */
public class LedgerListeners {
    private static final String INSERT_LEDGER = "INSERT INTO ledger (payment_id, amount) VALUES (?, ?)";
    private final JdbcTemplate jdbc;

    public LedgerListeners(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    // sample: messaging-spring-listeners, getting-started-listeners
    @KafkaListener(topics = "payments", concurrency = "2")
    @IdempotentListener
    void onPayment(ConsumerRecord<String, String> record) {
        jdbc.update(INSERT_LEDGER, record.key(), Long.parseLong(record.value()));   // joins the inbox's transaction
    }

    @KafkaListener(topics = "payments", batch = "true")
    @IdempotentListener
    void onPayments(List<ConsumerRecord<String, String>> records) {                  // only the new ones of the batch
        for (ConsumerRecord<String, String> record : records) {
            jdbc.update(INSERT_LEDGER, record.key(), Long.parseLong(record.value()));
        }
    }

    @RabbitListener(queues = "payments")
    @IdempotentListener(consumer = "ledger")
    void onRabbitPayment(Message message) {
        String body = new String(message.getBody(), StandardCharsets.UTF_8);
        jdbc.update(INSERT_LEDGER, message.getMessageProperties().getMessageId(), Long.parseLong(body));
    }
    // end sample
}
