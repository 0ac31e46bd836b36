package dev.idem.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an operator reads of an {@link Outbox} ({@link Outbox#backlog}): the events not sent yet, how
 * old the oldest is, the same per destination (aggregate type, which relays route by), and the rows
 * the relay keeps failing on. Never a payload or headers. Ages are on the database's clock.
 *
 * @param pending      events not sent yet
 * @param oldestAge    the age of the oldest of them, or empty if none is pending
 * @param destinations per aggregate type with pending events, the one with the oldest first
 * @param failing      pending events with failed publish attempts, most attempts first
 * @param asOf         the database's clock when it was read
 */
public record OutboxBacklog(long pending, Optional<Duration> oldestAge, List<Destination> destinations, List<FailingEvent> failing,
                            Instant asOf) {

    public OutboxBacklog {
        Objects.requireNonNull(oldestAge, "oldestAge");
        destinations = List.copyOf(destinations);
        failing = List.copyOf(failing);
        Objects.requireNonNull(asOf, "asOf");
    }

    /** One aggregate type's pending events: the lag of the relay for that destination. */
    public record Destination(String aggregateType, long pending, Duration oldestAge, int maxAttempts) {
    }

    /**
     * A pending event the relay failed to publish {@code attempts} times.
     *
     * @param lastError the publisher's last error, as the relay kept it (it may quote data: show it only to whom may see payloads)
     */
    public record FailingEvent(long id, String messageId, String aggregateType, String aggregateId, long sequence, String eventType,
                               int attempts, Instant createdAt, Instant nextAttemptAt, Optional<String> lastError) {
    }
}
