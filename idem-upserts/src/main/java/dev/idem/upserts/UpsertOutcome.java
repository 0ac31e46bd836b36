package dev.idem.upserts;

/** What {@link Upserts#insertOrUpdate} did with the row. */
public enum UpsertOutcome {
    /** No row had the key: the row was inserted. */
    INSERTED,
    /** A row had the key and was overwritten (its version was older, if a version column guards it). */
    UPDATED,
    /** A row had the key with an equal or newer version: nothing changed. */
    STALE
}
