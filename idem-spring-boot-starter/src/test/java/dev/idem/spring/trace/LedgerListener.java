package dev.idem.spring.trace;

import dev.idem.spring.IdempotentListener;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** Writes each payment event to the ledger once; remembers the records and the span it ran in. */
@Component
@ConditionalOnProperty("trace.topic")
public class LedgerListener {
    static final List<ConsumerRecord<String, String>> RECORDS = new CopyOnWriteArrayList<>();
    static final List<SpanContext> SPANS = new CopyOnWriteArrayList<>();
    private final JdbcTemplate jdbc;

    public LedgerListener(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @KafkaListener(topics = "${trace.topic}", groupId = "${trace.group}")
    @IdempotentListener(consumer = "trace-ledger")
    public void on(ConsumerRecord<String, String> record) {
        SPANS.add(Span.current().getSpanContext());
        jdbc.update("INSERT INTO trace_ledger (payment) VALUES (?)", record.value());
        RECORDS.add(record);
    }
}
