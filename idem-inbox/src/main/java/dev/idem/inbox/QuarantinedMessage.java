package dev.idem.inbox;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** A message in the quarantine: the message as delivered, how often it failed, and its last error. */
public final class QuarantinedMessage {
    private final String consumer;
    private final InboxMessage message;
    private final int attempts;
    private final Instant firstFailure;
    private final Instant lastFailure;
    private final String errorClass;
    private final String errorMessage;

    QuarantinedMessage(String consumer, InboxMessage message, int attempts, Instant firstFailure, Instant lastFailure,
            String errorClass, String errorMessage) {
        this.consumer = consumer;
        this.message = message;
        this.attempts = attempts;
        this.firstFailure = firstFailure;
        this.lastFailure = lastFailure;
        this.errorClass = errorClass;
        this.errorMessage = errorMessage;
    }

    public String consumer() {
        return consumer;
    }

    public String messageId() {
        return message.id();
    }

    /** The message with the payload and headers of its last failed delivery. */
    public InboxMessage message() {
        return message;
    }

    public byte[] payload() {
        return message.payload();
    }

    public Map<String, String> headers() {
        return message.headers();
    }

    public int attempts() {
        return attempts;
    }

    public Instant firstFailure() {
        return firstFailure;
    }

    public Instant lastFailure() {
        return lastFailure;
    }

    /** The class of what the handler last threw. */
    public String errorClass() {
        return errorClass;
    }

    /** Its message, truncated; it is the application's text and may quote data. */
    public Optional<String> errorMessage() {
        return Optional.ofNullable(errorMessage);
    }

    /** Shows the consumer, id, attempts and error class; never the payload or the error's text. */
    @Override
    public String toString() {
        return "QuarantinedMessage[consumer=" + consumer + ", id=" + message.id() + ", attempts=" + attempts
                + ", error=" + errorClass + "]";
    }
}
