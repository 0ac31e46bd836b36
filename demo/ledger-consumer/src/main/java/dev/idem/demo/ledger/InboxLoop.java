package dev.idem.demo.ledger;

import dev.idem.inbox.consumer.ConsumerListener;
import dev.idem.inbox.consumer.MessageIdExtractor;
import dev.idem.inbox.Inbox;
import dev.idem.kafka.IdempotentKafkaConsumer;
import dev.idem.kafka.KafkaMessageIds;
import java.time.Duration;
import java.util.Collection;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Mode {@code inbox}: an {@link IdempotentKafkaConsumer}. Per poll, the records' message ids are
 * claimed in the inbox and a ledger row is appended for each new one, all in one transaction; the
 * offsets are committed to Kafka only after that. A record delivered again (after a crash between
 * the two commits, or a producer's retry of the same {@code message-id}) is a duplicate and writes
 * nothing. A value that is not a payment event fails its attempt and is quarantined after the
 * inbox's maximum attempts; the partition then moves on.
 *
 * <p>The crash point hooks {@link ConsumerListener#processed}: the consumer calls it on its poll
 * thread after the transaction holding the record's row committed, and before it commits offsets.
 */
final class InboxLoop implements LedgerLoop {
    private final IdempotentKafkaConsumer<String, byte[]> consumer;
    private volatile State state = State.STARTING;

    InboxLoop(Inbox inbox, KafkaSettings kafka, CrashPoint crash, JsonMapper json) {
        // One extractor for the claim and for the row, so message_id is the id the inbox deduplicated by.
        MessageIdExtractor<ConsumerRecord<?, ?>> messageIds = KafkaMessageIds.standard();
        this.consumer = IdempotentKafkaConsumer.<String, byte[]>builder(inbox)
                .consumerConfig(kafka.consumerConfig())
                .deserializers(new StringDeserializer(), new ByteArrayDeserializer())
                .topics(kafka.topic())
                .consumerName(kafka.group())
                .messageIdExtractor(messageIds)
                .handler((connection, record) ->
                        LedgerTable.append(connection, PaymentEvent.parse(record.value(), json), messageIds.messageId(record)))
                .listener(new Listener(crash, inbox.maxAttempts()))
                .closeTimeout(Duration.ofSeconds(10))
                .build();
    }

    @Override
    public void start() {
        consumer.start();
    }

    @Override
    public State state() {
        return consumer.failure().isPresent() ? State.DOWN : state;
    }

    @Override
    public void close() {
        consumer.close();
    }

    private final class Listener implements ConsumerListener<ConsumerRecord<?, ?>> {
        private final CrashPoint crash;
        private final int maxAttempts;

        Listener(CrashPoint crash, int maxAttempts) {
            this.crash = crash;
            this.maxAttempts = maxAttempts;
        }

        @Override
        public void assigned(String consumer, Collection<String> partitions) {
            state = State.UP;
        }

        @Override
        public void processed(String consumer, ConsumerRecord<?, ?> record, String messageId) {
            // After the database commit of this record's row, before commitSync: the crash point.
            crash.committed(1);
        }

        @Override
        public void failed(String consumer, ConsumerRecord<?, ?> record, String messageId, int attempts, Throwable cause) {
            System.err.println("ledger-consumer: the record at " + where(record) + " failed (attempt " + attempts + " of "
                    + maxAttempts + "): " + cause.getMessage());
        }

        @Override
        public void quarantined(String consumer, ConsumerRecord<?, ?> record, String messageId) {
            System.err.println("ledger-consumer: the record at " + where(record) + " is in the quarantine; moving past it");
        }
    }

    /** Null for a record the deserializers refused (the demo's do not refuse any). */
    static String where(ConsumerRecord<?, ?> record) {
        if (record == null) {
            return "an unreadable record";
        }
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }
}
