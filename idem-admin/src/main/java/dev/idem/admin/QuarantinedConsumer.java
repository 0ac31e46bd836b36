package dev.idem.admin;

import dev.idem.inbox.InboxHandler;
import dev.idem.inbox.Quarantine;
import java.util.Objects;

/**
 * An inbox consumer whose quarantine {@link IdemAdmin} shows and acts on: its name, its inbox's
 * quarantine and the handler a replay runs (the consumer's own, so a replayed message is processed
 * exactly as a delivery would be).
 */
public record QuarantinedConsumer(String consumer, Quarantine quarantine, InboxHandler handler) {
    public QuarantinedConsumer {
        if (consumer == null || consumer.isBlank()) {
            throw new IllegalArgumentException("consumer is missing or blank");
        }
        Objects.requireNonNull(quarantine, "quarantine is null");
        Objects.requireNonNull(handler, "handler is null");
    }
}
