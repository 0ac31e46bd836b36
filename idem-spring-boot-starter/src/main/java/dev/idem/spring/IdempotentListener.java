package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code @KafkaListener} or {@code @RabbitListener} method an idempotent consumer: each
 * message's id is claimed in idem's inbox and the method runs in the same Spring transaction of the
 * inbox's {@code DataSource}, so its JDBC or JPA writes and the claim commit together, once per
 * message id. The container acknowledges (offset commit, {@code basic.ack}) only after that commit.
 *
 * <pre>{@code
 * @KafkaListener(topics = "payments")
 * @IdempotentListener
 * void on(ConsumerRecord<String, String> record) { jdbc.update("insert into ledger ...", ...); }
 * }</pre>
 *
 * <ul>
 *   <li>A message whose id was processed before is acknowledged without calling the method.</li>
 *   <li>A method that throws rolls back; the attempt is counted, and the exception reaches the
 *       container, which redelivers. The attempt that reaches the inbox's {@code maxAttempts}
 *       ({@code idem.inbox.max-attempts}) moves the message to the quarantine and returns normally,
 *       so the container acknowledges it and the messages behind it flow.</li>
 *   <li>Batch listeners ({@code List<ConsumerRecord<K, V>>}, {@code List<Message<?>>}, a list of
 *       payloads): all ids are claimed in one transaction and the method gets only the new ones.</li>
 *   <li>An {@code Acknowledgment} (Kafka) or {@code Channel} (RabbitMQ) argument is handed over
 *       wrapped: an acknowledgement the method makes takes effect after the commit.</li>
 * </ul>
 *
 * <p>The message id: by default the broker's usual one — for a Kafka record its {@code message-id}
 * header (as idem's outbox writes it), else {@code topic-partition-offset}; for a RabbitMQ message its
 * AMQP {@code message-id} property, else a {@code message-id} header. {@link #messageIdHeader} names
 * another header; {@link #messageId} is a SpEL expression over the message or payload argument.
 * A listener whose settings would break the guarantee fails startup with a message naming the
 * method: no way to tell the message id, Kafka {@code enable.auto.commit=true}, RabbitMQ
 * {@code AcknowledgeMode.NONE}.
 *
 * <p>With idem-opentelemetry and an {@code OpenTelemetry} bean, each delivery (claim, method, commit)
 * runs in a CONSUMER span continuing the message's W3C {@code traceparent}, with its outcome
 * ({@code processed}, {@code duplicate}, {@code quarantined}, {@code failed}); never the message id or
 * the body. See {@link IdemOpenTelemetryAutoConfiguration}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentListener {

    /**
     * The inbox's consumer name, which scopes message ids (1–200 visible ASCII characters). Empty: the
     * listener's {@code id} if it has one, else {@code <bean name>#<method name>}. Keep it stable:
     * renaming it makes every message new again.
     */
    String consumer() default "";

    /**
     * A header holding the message id (a Kafka header, as UTF-8 text; a RabbitMQ header). Empty: the
     * broker's usual id (see the class comment). A Kafka record without the header falls back to its
     * coordinates; a RabbitMQ message without it is rejected.
     */
    String messageIdHeader() default "";

    /**
     * A SpEL expression whose value is the message id, evaluated with the listener's message argument
     * as root object: the {@code ConsumerRecord}, the {@code Message}, or the payload (for a batch, each
     * element of the list), with read-only access: for example {@code "key()"} on a record, or
     * {@code "paymentId"} on a payload with a {@code getPaymentId()}. Empty: {@link #messageIdHeader} or the broker's usual id.
     */
    String messageId() default "";
}
