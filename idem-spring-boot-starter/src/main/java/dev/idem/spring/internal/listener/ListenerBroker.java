package dev.idem.spring.internal.listener;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * What one broker's Spring integration (spring-kafka, spring-rabbit) tells the idempotent listener
 * advice: which methods are its listeners, the usual message id of its message types, how its
 * manual acknowledgement is deferred, and which container settings break the guarantee. The advice
 * itself, one for every broker, is {@link IdempotentListenerInterceptor}.
 */
public interface ListenerBroker {

    /** The broker's name, for messages. */
    String name();

    /** Whether {@code method} carries this broker's listener annotation. */
    boolean listens(Method method);

    /** The listener annotation's {@code id}, or empty. */
    String listenerId(Method method);

    /**
     * How the message id of an element of {@code type} (a record, a message) is read, with
     * {@code header} (may be empty: the broker's usual id); null if {@code type} is not one of the
     * broker's message types. The function answers null if the message has no id.
     */
    Function<Object, String> messageIds(Class<?> type, String header);

    /** Whether a parameter of {@code type} is supplied by the container (not the message). */
    boolean containerArgument(Class<?> type);

    /** The message's content, stored with a quarantined message (empty if it is not text or bytes). */
    byte[] payload(Object element);

    /**
     * The broker's own count of the message's deliveries, this one included, where it keeps one (a
     * quorum queue's {@code x-delivery-count} plus one); 0 if it keeps none. The inbox quarantines a
     * failing message once this count or its own reaches its maximum.
     */
    long deliveries(Object element);

    /** The broker's {@code messaging.system} name in OpenTelemetry's terms ({@code kafka}, {@code rabbitmq}), for traces. */
    String system();

    /** The topic or queue a message came from, for traces; null if the element is only a payload. */
    String destination(Object element);

    /**
     * A message's headers as text (bytes as UTF-8), for the trace context they carry (W3C
     * {@code traceparent}); empty if the element is only a payload.
     */
    Map<String, String> headers(Object element);

    /** The index of the manual-acknowledgement parameter of {@code method}, or -1. */
    int acknowledgementParameter(Method method);

    /**
     * Checks, once while the application starts, what the guarantee needs of the listener's
     * container and of the method's parameters, and that no retry or delivery limit of the container
     * or the broker gives a failing message up before the inbox quarantines it at {@code maxAttempts}.
     *
     * @throws IllegalStateException naming {@code where} and the setting
     */
    void check(Method method, String where, boolean batch, int maxAttempts, ListableBeanFactory beans);

    /**
     * The acknowledgement argument to hand to the method, deferring what the method does with it
     * until the transaction commits; {@code elements} are the messages of the delivery, {@code args}
     * the method's arguments (where a delivery tag may be found).
     */
    DeferredAcknowledgement defer(Object acknowledgement, List<?> elements, Object[] args);

    /**
     * What a batch listener throws when the message at {@code index} of the delivery failed and is not
     * settled, while the others were processed: the container redelivers from it (spring-kafka's
     * {@code BatchListenerFailedException}), or the cause itself where the container knows no index.
     */
    Throwable failedInBatch(Throwable cause, int index);

    /** The exception for a message without a usable id: the container must not redeliver it forever. */
    RuntimeException unidentified(String message);
}
