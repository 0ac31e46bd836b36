package dev.idem.nats;

import dev.idem.outbox.OutboxMessage;
import dev.idem.outbox.OutboxPublisher;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * An {@link OutboxPublisher} for an {@code OutboxRelay}: publishes each outbox event to JetStream
 * with {@code Nats-Msg-Id} = the event's stable outbox id and returns only once the stream's
 * {@code PubAck} arrived, so the relay marks an event sent only after JetStream stored it.
 *
 * <pre>{@code
 * NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(nats).subject(m -> "payments." + m.eventType()).build();
 * OutboxRelay relay = OutboxRelay.builder(outbox, publisher).build().start();
 * }</pre>
 *
 * <p>Two lines of deduplication follow from the stable id: a republish within the stream's
 * <b>duplicate window</b> (2 minutes by default) is dropped by JetStream itself (its {@code PubAck}
 * says duplicate; counted by {@link #duplicates()}, and a success for the relay); one after it is
 * stored again and deduplicated by the consumer's inbox, which reads the same header.
 *
 * <p>Headers: the event's own, then {@value #AGGREGATE_TYPE}, {@value #AGGREGATE_ID},
 * {@value #SEQUENCE} and {@value #EVENT_TYPE}. A publish fails (and the relay retries it with
 * backoff) when no stream takes the subject, when {@code expectedStream} is set and another stream
 * took it, or when no {@code PubAck} arrives within {@code timeout}. Thread-safe.
 */
public final class NatsOutboxPublisher implements OutboxPublisher {
    public static final String AGGREGATE_TYPE = "Idem-Aggregate-Type";
    public static final String AGGREGATE_ID = "Idem-Aggregate-Id";
    public static final String SEQUENCE = "Idem-Sequence";
    public static final String EVENT_TYPE = "Idem-Event-Type";

    private final JetStream jetStream;
    private final Function<OutboxMessage, String> subject;
    private final String expectedStream;
    private final Duration timeout;
    private final AtomicLong duplicates = new AtomicLong();

    private NatsOutboxPublisher(Builder b) throws IOException {
        this.jetStream = b.connection.jetStream(JetStreamOptions.builder().requestTimeout(b.timeout).build());
        this.subject = b.subject;
        this.expectedStream = b.expectedStream;
        this.timeout = b.timeout;
    }

    public static Builder builder(Connection connection) {
        return new Builder(connection);
    }

    /** {@link #send}, for the relay. */
    @Override
    public void publish(OutboxMessage message) throws IOException, JetStreamApiException {
        send(message);
    }

    /**
     * Publishes the event and returns the stream's acknowledgement: {@link PublishAck#isDuplicate()}
     * is true when the stream already held an event with this id within its duplicate window.
     *
     * @throws IOException          no stream took the subject, or no PubAck within the timeout
     * @throws JetStreamApiException JetStream refused the message (e.g. another stream than {@code expectedStream})
     */
    public PublishAck send(OutboxMessage message) throws IOException, JetStreamApiException {
        Objects.requireNonNull(message, "message is null");
        String to = subject.apply(message);
        if (to == null || to.isEmpty()) {
            throw new IllegalStateException("the subject function returned no subject for event " + message.messageId());
        }
        Headers headers = new Headers();
        message.headers().forEach(headers::put);
        headers.put(AGGREGATE_TYPE, message.aggregateType());
        headers.put(AGGREGATE_ID, message.aggregateId());
        headers.put(SEQUENCE, Long.toString(message.sequence()));
        headers.put(EVENT_TYPE, message.eventType());
        PublishOptions.Builder options = PublishOptions.builder().messageId(message.messageId().toString()).streamTimeout(timeout);
        if (expectedStream != null) {
            options.expectedStream(expectedStream);
        }
        PublishAck ack = jetStream.publish(NatsMessage.builder().subject(to).headers(headers).data(message.payload()).build(), options.build());
        if (ack.isDuplicate()) {
            duplicates.incrementAndGet();
        }
        return ack;
    }

    /** Publishes the stream acknowledged as duplicates (already stored within its duplicate window) so far. */
    public long duplicates() {
        return duplicates.get();
    }

    @Override
    public String toString() {
        return "NatsOutboxPublisher[" + (expectedStream != null ? "stream=" + expectedStream + ", " : "") + "timeout=" + timeout + "]";
    }

    /** Settings of a {@link NatsOutboxPublisher}; each setter validates its value. */
    public static final class Builder {
        private final Connection connection;
        private Function<OutboxMessage, String> subject;
        private String expectedStream;
        private Duration timeout = Duration.ofSeconds(10);

        private Builder(Connection connection) {
            this.connection = Objects.requireNonNull(connection, "connection is null");
        }

        /** One subject for every event (no wildcards). Either this or {@link #subject(Function)} is required. */
        public Builder subject(String subject) {
            if (subject == null || subject.isEmpty() || subject.chars().anyMatch(ch -> Character.isWhitespace(ch) || ch == '*' || ch == '>')) {
                throw new IllegalArgumentException("subject must be non-empty without whitespace or wildcards, was "
                        + (subject == null ? "null" : "'" + subject + "'"));
            }
            this.subject = m -> subject;
            return this;
        }

        /** A subject per event, e.g. {@code m -> "payments." + m.aggregateId()}. */
        public Builder subject(Function<OutboxMessage, String> subject) {
            this.subject = Objects.requireNonNull(subject, "subject is null");
            return this;
        }

        /** Fail the publish unless this stream stores it. Default: any stream that takes the subject. */
        public Builder expectedStream(String stream) {
            this.expectedStream = NatsInboxConsumer.Builder.checkName("expectedStream", stream);
            return this;
        }

        /** How long to wait for the PubAck: 10 ms – 10 min, default 10 s. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout is null");
            if (timeout.toMillis() < 10 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("timeout must be 10 ms - 10 min, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * @throws IllegalStateException if no subject was set
         * @throws IOException           if the connection cannot give a JetStream context
         */
        public NatsOutboxPublisher build() throws IOException {
            if (subject == null) {
                throw new IllegalStateException("NatsOutboxPublisher needs a subject");
            }
            return new NatsOutboxPublisher(this);
        }
    }
}
