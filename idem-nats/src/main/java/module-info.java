/**
 * idem on NATS JetStream: an idempotent pull consumer that acknowledges ({@code AckSync}) a message
 * only after the inbox's transaction committed, and an outbox publisher that sets {@code Nats-Msg-Id}.
 *
 * <p>The broker client is an automatic module; it is required transitively because the API hands out
 * its types (connections, deliveries, messages).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idem.nats {
    requires transitive dev.idem.inbox;
    requires transitive dev.idem.outbox;
    requires transitive io.nats.jnats;

    exports dev.idem.nats;
    exports dev.idem.nats.kv;
}
