package dev.idem.kafka;

/**
 * The record headers idem writes and reads. {@link KafkaOutboxPublisher} writes all of them, UTF-8
 * encoded; {@link KafkaMessageIds#standard()} reads {@link #MESSAGE_ID}.
 */
public final class KafkaHeaders {
    /** The stable message id of an outbox event: the same on every publish of the event. */
    public static final String MESSAGE_ID = "message-id";
    public static final String EVENT_TYPE = "event-type";
    public static final String AGGREGATE_TYPE = "aggregate-type";
    public static final String AGGREGATE_ID = "aggregate-id";
    /** The event's sequence in its aggregate: 1, 2, 3, … without gaps. */
    public static final String SEQUENCE = "sequence";

    private KafkaHeaders() {
    }

    static boolean reserved(String name) {
        return MESSAGE_ID.equals(name) || EVENT_TYPE.equals(name) || AGGREGATE_TYPE.equals(name)
                || AGGREGATE_ID.equals(name) || SEQUENCE.equals(name);
    }
}
