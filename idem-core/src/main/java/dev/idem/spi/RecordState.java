package dev.idem.spi;

/** The two states a live record can be in; an absent record has no state. */
public enum RecordState {
    /** Owned by the holder of the current token; may carry a recovery point. */
    IN_PROGRESS,
    /** Holds a response to replay until it expires. */
    COMPLETED
}
