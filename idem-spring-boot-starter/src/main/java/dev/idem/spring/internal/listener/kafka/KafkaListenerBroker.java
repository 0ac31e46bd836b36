package dev.idem.spring.internal.listener.kafka;

import dev.idem.kafka.KafkaHeaders;
import dev.idem.kafka.KafkaMessageIds;
import dev.idem.spring.internal.listener.DeferredAcknowledgement;
import dev.idem.spring.internal.listener.ListenerBroker;
import dev.idem.spring.internal.listener.Payloads;
import java.lang.reflect.Method;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerConfigUtils;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.messaging.Message;

/**
 * spring-kafka's part: {@code @KafkaListener} methods, a record's id as idem's Kafka consumer reads it
 * ({@link KafkaMessageIds}: the {@code message-id} header, else {@code topic-partition-offset}), the
 * {@link Acknowledgment} deferred, and {@code enable.auto.commit=true} refused (the consumer would
 * commit offsets on its own schedule, not after the transaction).
 */
public final class KafkaListenerBroker implements ListenerBroker {
    /** The bean name spring-kafka uses when a listener names no container factory. */
    static final String DEFAULT_FACTORY = "kafkaListenerContainerFactory";
    /** The topic of the container made (never started) to read what the factory gives its containers. */
    private static final String PROBE_TOPIC = "idem-probe";

    @Override
    public String name() {
        return "Kafka";
    }

    @Override
    public boolean listens(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, KafkaListener.class);
    }

    @Override
    public String listenerId(Method method) {
        KafkaListener listener = AnnotatedElementUtils.findMergedAnnotation(method, KafkaListener.class);
        return listener == null ? "" : listener.id();
    }

    @Override
    public Function<Object, String> messageIds(Class<?> type, String header) {
        String name = header.isEmpty() ? KafkaHeaders.MESSAGE_ID : header;
        if (ConsumerRecord.class.isAssignableFrom(type)) {
            var ids = KafkaMessageIds.headerOrCoordinates(name);
            return element -> ids.messageId((ConsumerRecord<?, ?>) element);
        }
        if (Message.class.isAssignableFrom(type)) {
            return element -> messageId((Message<?>) element, name);
        }
        return null;
    }

    /** The header, else the record's coordinates in {@link KafkaMessageIds#coordinatesOf}'s form. */
    private static String messageId(Message<?> message, String header) {
        String id = Payloads.text(message.getHeaders().get(header));
        if (id != null) {
            return id;
        }
        Object topic = message.getHeaders().get(org.springframework.kafka.support.KafkaHeaders.RECEIVED_TOPIC);
        Object partition = message.getHeaders().get(org.springframework.kafka.support.KafkaHeaders.RECEIVED_PARTITION);
        Object offset = message.getHeaders().get(org.springframework.kafka.support.KafkaHeaders.OFFSET);
        return topic == null || partition == null || offset == null ? null : topic + "-" + partition + "-" + offset;
    }

    @Override
    public boolean containerArgument(Class<?> type) {
        return Acknowledgment.class.isAssignableFrom(type) || Consumer.class.isAssignableFrom(type);
    }

    @Override
    public byte[] payload(Object element) {
        if (element instanceof ConsumerRecord<?, ?> record) {
            return Payloads.bytes(record.value());
        }
        return Payloads.bytes(element instanceof Message<?> message ? message.getPayload() : element);
    }

    /** Kafka keeps no delivery count: the inbox's is the only one. */
    @Override
    public long deliveries(Object element) {
        return 0;
    }

    @Override
    public String system() {
        return "kafka";
    }

    @Override
    public String destination(Object element) {
        if (element instanceof ConsumerRecord<?, ?> record) {
            return record.topic();
        }
        return element instanceof Message<?> message
                ? Payloads.text(message.getHeaders().get(org.springframework.kafka.support.KafkaHeaders.RECEIVED_TOPIC)) : null;
    }

    @Override
    public Map<String, String> headers(Object element) {
        if (element instanceof ConsumerRecord<?, ?> record) {
            List<Map.Entry<String, byte[]>> headers = new ArrayList<>();
            for (Header header : record.headers()) {
                headers.add(new AbstractMap.SimpleImmutableEntry<>(header.key(), header.value()));
            }
            return Payloads.texts(headers);
        }
        return element instanceof Message<?> message ? Payloads.texts(message.getHeaders().entrySet()) : Map.of();
    }

    @Override
    public int acknowledgementParameter(Method method) {
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (Acknowledgment.class.isAssignableFrom(types[i])) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void check(Method method, String where, boolean batch, int maxAttempts, ListableBeanFactory beans) {
        KafkaListener listener = AnnotatedElementUtils.findMergedAnnotation(method, KafkaListener.class);
        String name = listener.containerFactory().isEmpty() ? DEFAULT_FACTORY : listener.containerFactory();
        if (!beans.containsBean(name) || !(beans.getBean(name) instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> factory)) {
            return;  // a factory of the application's own kind: its settings are not ours to read
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        if (factory.getConsumerFactory() != null) {
            settings.putAll(factory.getConsumerFactory().getConfigurationProperties());
        }
        factory.getContainerProperties().getKafkaConsumerProperties().forEach((k, v) -> settings.put(k.toString(), v));
        for (String property : listener.properties()) {
            String[] pair = property.split("[=:]", 2);
            if (pair.length == 2) {
                settings.put(pair[0].trim(), pair[1].trim());
            }
        }
        if ("true".equalsIgnoreCase(String.valueOf(settings.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG)))) {
            throw new IllegalStateException("@IdempotentListener on " + where + ": the listener's consumer has enable.auto.commit=true"
                    + " (container factory '" + name + "'), so Kafka commits offsets on its own schedule, before the"
                    + " database commit; set spring.kafka.consumer.enable-auto-commit=false (the container then commits"
                    + " after the listener returns)");
        }
        redeliverUnsettled(factory, beans);
    }

    /**
     * Wraps the error handler of the factory and of the containers it made already (spring-kafka's
     * default where the application set none) in {@link UnsettledRedelivery}, so that the handler's
     * own retry limit never skips a record the inbox has not quarantined.
     */
    private static void redeliverUnsettled(AbstractKafkaListenerContainerFactory<?, ?, ?> factory, ListableBeanFactory beans) {
        AbstractMessageListenerContainer<?, ?> probe = factory.createContainer(PROBE_TOPIC);
        if (!(probe.getCommonErrorHandler() instanceof UnsettledRedelivery)) {
            factory.setCommonErrorHandler(redelivering(probe.getCommonErrorHandler()));
        }
        if (beans.containsBean(KafkaListenerConfigUtils.KAFKA_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME)
                && beans.getBean(KafkaListenerConfigUtils.KAFKA_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME) instanceof KafkaListenerEndpointRegistry registry) {
            for (MessageListenerContainer container : registry.getListenerContainers()) {
                if (container instanceof AbstractMessageListenerContainer<?, ?> c && !c.isRunning()
                        && !(c.getCommonErrorHandler() instanceof UnsettledRedelivery)) {
                    c.setCommonErrorHandler(redelivering(c.getCommonErrorHandler()));
                }
            }
        }
    }

    private static UnsettledRedelivery redelivering(CommonErrorHandler handler) {
        return new UnsettledRedelivery(handler == null ? new DefaultErrorHandler() : handler);
    }

    @Override
    public DeferredAcknowledgement defer(Object acknowledgement, List<?> elements, Object[] args) {
        return new DeferredKafkaAcknowledgement((Acknowledgment) acknowledgement);
    }

    /**
     * The container's error handler commits the offsets before {@code index} and redelivers from it;
     * the records behind it were processed, and come back as duplicates.
     */
    @Override
    public Throwable failedInBatch(Throwable cause, int index) {
        return new BatchListenerFailedException("@IdempotentListener: the batch's record at index " + index + " failed"
                + " and is not quarantined yet; the records after it were processed", cause, index);
    }

    @Override
    public RuntimeException unidentified(String message) {
        return new IllegalArgumentException(message);
    }

    /** Records the method's acknowledgement calls and makes them on the container's after the commit. */
    static final class DeferredKafkaAcknowledgement implements DeferredAcknowledgement {
        private final Acknowledgment delegate;
        private final List<Runnable> calls = new ArrayList<>();
        private volatile List<Integer> indexes;

        DeferredKafkaAcknowledgement(Acknowledgment delegate) {
            this.delegate = delegate;
        }

        @Override
        public Object argument() {
            return new Acknowledgment() {
                @Override
                public void acknowledge() {
                    record(delegate::acknowledge);
                }

                @Override
                public void acknowledge(int index) {
                    int original = original(index);
                    record(() -> delegate.acknowledge(original));
                }

                @Override
                public void nack(java.time.Duration sleep) {
                    record(() -> delegate.nack(sleep));
                }

                @Override
                public void nack(int index, java.time.Duration sleep) {
                    int original = original(index);
                    record(() -> delegate.nack(original, sleep));
                }

                @Override
                public boolean isOutOfOrderCommit() {
                    return delegate.isOutOfOrderCommit();
                }
            };
        }

        private int original(int index) {
            List<Integer> passed = indexes;
            return passed == null || index < 0 || index >= passed.size() ? index : passed.get(index);
        }

        private synchronized void record(Runnable call) {
            calls.add(call);
        }

        @Override
        public void passed(List<Integer> originalIndexes) {
            this.indexes = List.copyOf(originalIndexes);
        }

        @Override
        public synchronized void replay() {
            List<Runnable> due = new ArrayList<>(calls);
            calls.clear();
            due.forEach(Runnable::run);
        }

        @Override
        public synchronized void discard() {
            calls.clear();
        }

        @Override
        public void settle() {
            delegate.acknowledge();
        }
    }
}
