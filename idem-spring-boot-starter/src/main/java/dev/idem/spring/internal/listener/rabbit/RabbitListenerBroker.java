package dev.idem.spring.internal.listener.rabbit;

import com.rabbitmq.client.Channel;
import dev.idem.spring.internal.listener.DeferredAcknowledgement;
import dev.idem.spring.internal.listener.ListenerBroker;
import dev.idem.spring.internal.listener.Payloads;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.MessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerContainerFactory;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.messaging.Message;

/**
 * spring-rabbit's part: {@code @RabbitListener} methods, a message's id as idem's RabbitMQ consumer
 * reads it (the AMQP {@code message-id} property, else a {@code message-id} header), the
 * {@link Channel}'s acknowledgements deferred ({@code AcknowledgeMode.MANUAL}), and
 * {@code AcknowledgeMode.NONE} refused (the broker forgets a message once it is sent, before the
 * transaction). A message without an id is rejected without requeue.
 */
public final class RabbitListenerBroker implements ListenerBroker {
    /** The bean name spring-rabbit uses when a listener names no container factory. */
    static final String DEFAULT_FACTORY = "rabbitListenerContainerFactory";
    /** The header clients and bridges set when they cannot set the AMQP property, as idem's RabbitMessageIds reads it. */
    static final String MESSAGE_ID_HEADER = "message-id";
    /** The header a quorum queue sets on a redelivery: how many deliveries of the message came back before. */
    static final String DELIVERY_COUNT = "x-delivery-count";
    private static final Set<String> ACKNOWLEDGEMENTS = Set.of("basicAck", "basicNack", "basicReject");

    @Override
    public String name() {
        return "RabbitMQ";
    }

    @Override
    public boolean listens(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, RabbitListener.class);
    }

    @Override
    public String listenerId(Method method) {
        RabbitListener listener = AnnotatedElementUtils.findMergedAnnotation(method, RabbitListener.class);
        return listener == null ? "" : listener.id();
    }

    @Override
    public Function<Object, String> messageIds(Class<?> type, String header) {
        if (org.springframework.amqp.core.Message.class.isAssignableFrom(type)) {
            return element -> {
                MessageProperties properties = ((org.springframework.amqp.core.Message) element).getMessageProperties();
                if (!header.isEmpty()) {
                    return Payloads.text(properties.getHeader(header));
                }
                String id = Payloads.text(properties.getMessageId());
                return id != null ? id : Payloads.text(properties.getHeader(MESSAGE_ID_HEADER));
            };
        }
        if (Message.class.isAssignableFrom(type)) {
            return element -> {
                Message<?> message = (Message<?>) element;
                if (!header.isEmpty()) {
                    return Payloads.text(message.getHeaders().get(header));
                }
                String id = Payloads.text(message.getHeaders().get(AmqpHeaders.MESSAGE_ID));
                return id != null ? id : Payloads.text(message.getHeaders().get(MESSAGE_ID_HEADER));
            };
        }
        return null;
    }

    @Override
    public boolean containerArgument(Class<?> type) {
        return Channel.class.isAssignableFrom(type);
    }

    @Override
    public byte[] payload(Object element) {
        if (element instanceof org.springframework.amqp.core.Message message) {
            return message.getBody();
        }
        return Payloads.bytes(element instanceof Message<?> message ? message.getPayload() : element);
    }

    /** A quorum queue's {@code x-delivery-count} (the deliveries given back before, also by a consumer that died) plus this one. */
    @Override
    public long deliveries(Object element) {
        Object returned = element instanceof org.springframework.amqp.core.Message message
                ? message.getMessageProperties().getHeader(DELIVERY_COUNT)
                : element instanceof Message<?> message ? message.getHeaders().get(DELIVERY_COUNT) : null;
        return returned instanceof Number n && n.longValue() >= 0 ? n.longValue() + 1 : 0;
    }

    @Override
    public String system() {
        return "rabbitmq";
    }

    @Override
    public String destination(Object element) {
        if (element instanceof org.springframework.amqp.core.Message message) {
            return message.getMessageProperties().getConsumerQueue();
        }
        return element instanceof Message<?> message ? Payloads.text(message.getHeaders().get(AmqpHeaders.CONSUMER_QUEUE)) : null;
    }

    @Override
    public Map<String, String> headers(Object element) {
        if (element instanceof org.springframework.amqp.core.Message message) {
            return Payloads.texts(message.getMessageProperties().getHeaders().entrySet());
        }
        return element instanceof Message<?> message ? Payloads.texts(message.getHeaders().entrySet()) : Map.of();
    }

    @Override
    public int acknowledgementParameter(Method method) {
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (Channel.class.isAssignableFrom(types[i])) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void check(Method method, String where, boolean batch, int maxAttempts, ListableBeanFactory beans) {
        AcknowledgeMode mode = acknowledgeMode(method, beans);
        if (mode == AcknowledgeMode.NONE) {
            throw new IllegalStateException("@IdempotentListener on " + where + ": the listener's container uses AcknowledgeMode.NONE,"
                    + " so the broker forgets each message as it sends it, before the database commit; use AUTO (the default:"
                    + " spring.rabbitmq.listener.simple.acknowledge-mode=auto) or MANUAL");
        }
        if (mode == AcknowledgeMode.MANUAL && (batch || acknowledgementParameter(method) < 0
                || messageIds(method.getParameterTypes()[messageParameter(method)], "") == null)) {
            throw new IllegalStateException("@IdempotentListener on " + where + ": with AcknowledgeMode.MANUAL the method must take"
                    + " the Channel and the Message (one per call, not a batch), so a duplicate can be acknowledged for it");
        }
        Environment environment = beans.getBean(Environment.class);
        checkRetries(where, maxAttempts, environment);
        checkDeliveryLimits(method, where, maxAttempts, environment, beans);
    }

    /**
     * Spring Boot's listener retry tries a message in process and then rejects it without requeue
     * (dropped, or dead-lettered): it must allow the inbox's attempts, or the inbox never quarantines it.
     */
    private static void checkRetries(String where, int maxAttempts, Environment environment) {
        String prefix = "spring.rabbitmq.listener." + environment.getProperty("spring.rabbitmq.listener.type", "simple").trim()
                .toLowerCase(java.util.Locale.ROOT) + ".retry.";
        if (!environment.getProperty(prefix + "enabled", Boolean.class, false)) {
            return;
        }
        long retries = environment.getProperty(prefix + "max-retries", Long.class, 3L);
        if (retries + 1 < maxAttempts) {
            throw new IllegalStateException("@IdempotentListener on " + where + ": the listener's retry (" + prefix + "enabled=true)"
                    + " tries a failing message " + (retries + 1) + " times and then rejects it, dropped or dead-lettered, before"
                    + " idem.inbox.max-attempts (" + maxAttempts + ") quarantines it: set " + prefix + "max-retries to at least "
                    + (maxAttempts - 1) + ", lower idem.inbox.max-attempts to " + (retries + 1) + ", or turn the retry off (the inbox"
                    + " counts the attempts and the broker redelivers)");
        }
    }

    /**
     * A quorum queue declared in the context with an {@code x-delivery-limit} drops (or dead-letters) a
     * message it delivered that many times plus one: the limit must be above the inbox's attempts, so
     * that the attempt that quarantines may die with its process and still come again.
     */
    private static void checkDeliveryLimits(Method method, String where, int maxAttempts, Environment environment,
                                            ListableBeanFactory beans) {
        RabbitListener listener = AnnotatedElementUtils.findMergedAnnotation(method, RabbitListener.class);
        Set<String> names = new java.util.HashSet<>();
        for (String queue : listener.queues()) {
            names.add(environment.resolvePlaceholders(queue));
        }
        for (Queue queue : beans.getBeansOfType(Queue.class, false, false).values()) {
            Object limit = queue.getArguments().get("x-delivery-limit");
            if (names.contains(queue.getName()) && limit instanceof Number n && n.longValue() <= maxAttempts) {
                throw new IllegalStateException("@IdempotentListener on " + where + ": queue '" + queue.getName() + "' has"
                        + " x-delivery-limit " + n + ", not above idem.inbox.max-attempts (" + maxAttempts + "), so the broker may drop"
                        + " a failing message before the inbox quarantines it: declare the queue with an x-delivery-limit of at least "
                        + (maxAttempts + 1) + ", or lower idem.inbox.max-attempts");
            }
        }
    }

    private int messageParameter(Method method) {
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (messageIds(types[i], "") != null || List.class.isAssignableFrom(types[i])) {
                return i;
            }
        }
        return 0;
    }

    /** The annotation's {@code ackMode}, else the container factory's, read from a container it makes (never started). */
    private static AcknowledgeMode acknowledgeMode(Method method, ListableBeanFactory beans) {
        RabbitListener listener = AnnotatedElementUtils.findMergedAnnotation(method, RabbitListener.class);
        if (!listener.ackMode().isEmpty() && !listener.ackMode().contains("${") && !listener.ackMode().contains("#{")) {
            return AcknowledgeMode.valueOf(listener.ackMode().trim());
        }
        String name = listener.containerFactory().isEmpty() ? DEFAULT_FACTORY : listener.containerFactory();
        if (!beans.containsBean(name) || !(beans.getBean(name) instanceof RabbitListenerContainerFactory<?> factory)) {
            return null;
        }
        MessageListenerContainer container = factory.createListenerContainer();
        return container instanceof AbstractMessageListenerContainer c ? c.getAcknowledgeMode() : null;
    }

    @Override
    public DeferredAcknowledgement defer(Object acknowledgement, List<?> elements, Object[] args) {
        return new DeferredChannel((Channel) acknowledgement, elements);
    }

    /** spring-rabbit redelivers a batch whole: its processed messages come back as duplicates. */
    @Override
    public Throwable failedInBatch(Throwable cause, int index) {
        return cause;
    }

    @Override
    public RuntimeException unidentified(String message) {
        return new AmqpRejectAndDontRequeueException(message);
    }

    /** The Channel handed to the method: its acks, nacks and rejects wait for the commit; the rest pass through. */
    static final class DeferredChannel implements DeferredAcknowledgement {
        private final Channel channel;
        private final List<?> elements;
        private final List<Object[]> calls = new ArrayList<>();
        private final List<Method> methods = new ArrayList<>();

        DeferredChannel(Channel channel, List<?> elements) {
            this.channel = channel;
            this.elements = elements;
        }

        @Override
        public Object argument() {
            return Proxy.newProxyInstance(Channel.class.getClassLoader(), new Class<?>[] {Channel.class}, (proxy, method, args) -> {
                if (ACKNOWLEDGEMENTS.contains(method.getName())) {
                    synchronized (this) {
                        methods.add(method);
                        calls.add(args);
                    }
                    return null;
                }
                try {
                    return method.invoke(channel, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
        }

        @Override
        public void passed(List<Integer> originalIndexes) {
        }

        @Override
        public synchronized void replay() {
            try {
                for (int i = 0; i < calls.size(); i++) {
                    methods.get(i).invoke(channel, calls.get(i));
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("acknowledging after the commit failed; the message will be redelivered"
                        + " and answered as a duplicate", e instanceof InvocationTargetException i ? i.getCause() : e);
            } finally {
                discard();
            }
        }

        @Override
        public synchronized void discard() {
            calls.clear();
            methods.clear();
        }

        @Override
        public void settle() {
            try {
                for (Object element : elements) {
                    channel.basicAck(deliveryTag(element), false);
                }
            } catch (java.io.IOException e) {
                throw new IllegalStateException("acknowledging a duplicate failed; it will be redelivered", e);
            }
        }

        private static long deliveryTag(Object element) {
            if (element instanceof org.springframework.amqp.core.Message message) {
                return message.getMessageProperties().getDeliveryTag();
            }
            Object tag = element instanceof Message<?> message ? message.getHeaders().get(AmqpHeaders.DELIVERY_TAG) : null;
            if (tag instanceof Long value) {
                return value;
            }
            throw new IllegalStateException("no delivery tag on the message to acknowledge");
        }
    }
}
