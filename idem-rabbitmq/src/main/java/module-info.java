/**
 * idem on RabbitMQ: an idempotent consumer that acknowledges a delivery only after the inbox's
 * transaction committed, and an outbox publisher that waits for publisher confirms.
 */
module dev.idem.rabbitmq {
    requires transitive dev.idem.jdbc;
    requires transitive com.rabbitmq.client;

    exports dev.idem.rabbitmq;
}
