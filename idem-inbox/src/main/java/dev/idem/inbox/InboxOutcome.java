package dev.idem.inbox;

import java.util.Objects;
import java.util.Optional;

/** What the inbox did with one delivery of a message. */
public final class InboxOutcome {

    public enum Status {
        /** New: the handler ran and its writes committed with the claim. */
        PROCESSED,
        /** Seen before (processed, or dropped from the quarantine): the handler did not run. */
        DUPLICATE,
        /** The handler threw; its writes were rolled back and the attempt was counted. Redeliver it. */
        FAILED,
        /** In quarantine, now (this delivery was its last allowed attempt) or earlier: the handler did not (or no longer) run. */
        QUARANTINED
    }

    private final Status status;
    private final String messageId;
    private final int attempts;
    private final Throwable failure;

    private InboxOutcome(Status status, String messageId, int attempts, Throwable failure) {
        this.status = status;
        this.messageId = messageId;
        this.attempts = attempts;
        this.failure = failure;
    }

    static InboxOutcome processed(String messageId) {
        return new InboxOutcome(Status.PROCESSED, messageId, 0, null);
    }

    static InboxOutcome duplicate(String messageId) {
        return new InboxOutcome(Status.DUPLICATE, messageId, 0, null);
    }

    static InboxOutcome failed(String messageId, int attempts, Throwable failure) {
        return new InboxOutcome(Status.FAILED, messageId, attempts, Objects.requireNonNull(failure));
    }

    static InboxOutcome quarantined(String messageId, int attempts, Throwable failure) {
        return new InboxOutcome(Status.QUARANTINED, messageId, attempts, failure);
    }

    public Status status() {
        return status;
    }

    public String messageId() {
        return messageId;
    }

    /**
     * Failed attempts counted for the message so far: set for {@link Status#FAILED}, and for
     * {@link Status#QUARANTINED} when this delivery quarantined it (or a replay failed); 0 otherwise.
     */
    public int attempts() {
        return attempts;
    }

    /** What the handler threw in this delivery, if it ran and threw. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /**
     * Whether the broker may be told the delivery is done (ack, commit the offset): true for
     * everything but {@link Status#FAILED}, which wants a redelivery.
     */
    public boolean settled() {
        return status != Status.FAILED;
    }

    /** Shows the status, id and attempts; the failure's class only. */
    @Override
    public String toString() {
        return "InboxOutcome[" + status + ", id=" + messageId + (attempts > 0 ? ", attempts=" + attempts : "")
                + (failure != null ? ", failure=" + failure.getClass().getName() : "") + "]";
    }
}
