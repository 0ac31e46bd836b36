/**
 * idem on Kafka: an idempotent consumer that commits each record's offset in the inbox's transaction,
 * the offsets table it keeps, and an outbox publisher over an idempotent producer.
 *
 * <p>kafka-clients names no module, so its jar is the automatic module {@code kafka.clients} (from the
 * file name); it is required transitively because the API hands out its types (consumers, producers,
 * records).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idem.kafka {
    requires transitive dev.idem.inbox;
    requires transitive dev.idem.outbox;
    requires transitive kafka.clients;

    exports dev.idem.kafka;
}
