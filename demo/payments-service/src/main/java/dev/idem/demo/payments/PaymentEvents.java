package dev.idem.demo.payments;

import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxRelay;
import dev.idem.kafka.KafkaOutboxPublisher;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The service's payment events, through idem's transactional outbox: {@link #paid} writes a
 * {@code payment.paid} event in the same database transaction that sets the payment to paid, and a
 * relay publishes it to Kafka with a stable {@code message-id} header (key: the payment id, so one
 * payment's events keep their order). The event exists if and only if the payment became paid; a
 * relay crash after the broker took it and before marking it sent publishes it again with the same
 * message id, which the consumer's inbox drops.
 *
 * <p>Off unless {@code --events.kafka} names a broker: then {@link #paid} writes nothing.
 *
 * <p>Payload: {@code {"paymentId","card","amount","currency","chargeId"}}, UTF-8 JSON.
 */
public final class PaymentEvents implements AutoCloseable {
    public static final String AGGREGATE_TYPE = "payment";
    public static final String PAID = "payment.paid";
    private static final Logger LOG = LoggerFactory.getLogger(PaymentEvents.class);

    private final Outbox outbox;
    private final OutboxRelay relay;
    private final KafkaOutboxPublisher publisher;
    private final JsonMapper json;

    private PaymentEvents(Outbox outbox, OutboxRelay relay, KafkaOutboxPublisher publisher, JsonMapper json) {
        this.outbox = outbox;
        this.relay = relay;
        this.publisher = publisher;
        this.json = json;
    }

    /** Events written to {@code outbox} and never relayed: for tests of the transactional write. */
    static PaymentEvents writeOnly(Outbox outbox, JsonMapper json) {
        return new PaymentEvents(outbox, null, null, json);
    }

    /** No events: {@link #paid} does nothing. */
    public static PaymentEvents disabled() {
        return new PaymentEvents(null, null, null, null);
    }

    /**
     * Creates the outbox tables if missing and starts a relay publishing to {@code topic} on the broker at
     * {@code bootstrapServers}. The relay polls every 100 ms: the lab waits for the ledger, not a person.
     */
    public static PaymentEvents start(DataSource dataSource, String bootstrapServers, String topic, JsonMapper json) {
        Outbox outbox = Outbox.builder(dataSource).build();
        outbox.migrate();
        KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", bootstrapServers,
                        "client.id", "payments-service-relay"))
                .topic(topic).sendTimeout(Duration.ofSeconds(10)).build();
        OutboxRelay relay = OutboxRelay.builder(outbox, publisher).name("payments-service").pollInterval(Duration.ofMillis(100))
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(5)).build().start();
        LOG.info("payment events: outbox relayed to Kafka topic {} at {}", topic, bootstrapServers);
        return new PaymentEvents(outbox, relay, publisher, json);
    }

    public boolean enabled() {
        return outbox != null;
    }

    /**
     * Writes the {@code payment.paid} event in the caller's transaction (which must not be in
     * auto-commit mode); nothing when events are off.
     */
    void paid(Connection connection, Payment payment, String card) throws SQLException {
        if (outbox == null) {
            return;
        }
        ObjectNode event = json.createObjectNode();
        event.put("paymentId", payment.id());
        event.put("card", card);
        event.put("amount", payment.amount());
        event.put("currency", payment.currency());
        event.put("chargeId", payment.chargeId());
        outbox.append(connection, AGGREGATE_TYPE, payment.id(), PAID, json.writeValueAsBytes(event));
    }

    /** Events written but not yet published (0 when events are off). */
    public long pending() {
        return outbox == null ? 0 : outbox.pendingCount();
    }

    /** Stops the relay (an event it had not published yet stays in the outbox for the next start), then the producer. */
    @Override
    public void close() {
        if (relay != null) {
            relay.close();
        }
        if (publisher != null) {
            publisher.close();
        }
    }
}
