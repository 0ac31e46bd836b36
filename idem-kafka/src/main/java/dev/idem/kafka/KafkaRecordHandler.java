package dev.idem.kafka;

import java.sql.Connection;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A consumer's work for one record, on the transaction that also claims the record's message id in
 * the inbox (and, in the offsets-in-database mode, stores the partition's offset). It must use only
 * the given connection and must not commit, roll back or change its auto-commit mode. Throwing any
 * exception rolls the work back and counts a failed attempt for the message.
 *
 * <p>The handler runs for new message ids only, once per id in a poll. It may run more than once for
 * one delivery (a poll's batch that fails is redone one record per transaction), but only one run
 * commits, so effects outside the database (HTTP calls, broker sends) do not belong here: write them
 * to the outbox.
 */
@FunctionalInterface
public interface KafkaRecordHandler<K, V> {
    void handle(Connection connection, ConsumerRecord<K, V> record) throws Exception;
}
