/**
 * idem on RabbitMQ: an idempotent consumer that acknowledges a delivery only after the inbox's
 * transaction committed, and an outbox publisher that waits for publisher confirms.
 *
 * <p>The broker client is an automatic module; it is required transitively because the API hands out
 * its types (connections, deliveries, messages).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idem.rabbitmq {
    requires transitive dev.idem.inbox;
    requires transitive dev.idem.outbox;
    requires transitive com.rabbitmq.client;

    exports dev.idem.rabbitmq;
}
