package dev.idem.admin;

import dev.idem.outbox.Outbox;
import dev.idem.outbox.OutboxBacklog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One outbox's part of {@link IdemAdmin}: a class of its own, so the outbox stays optional. */
final class OutboxSection {
    private static final int FAILING_LISTED = 50;

    private final String name;
    private final Outbox outbox;

    OutboxSection(String name, Outbox outbox) {
        this.name = name;
        this.outbox = outbox;
    }

    String name() {
        return name;
    }

    Map<String, Object> backlog(boolean showContent) {
        OutboxBacklog b = outbox.backlog(FAILING_LISTED);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("pending", b.pending());
        out.put("oldestAgeMs", b.oldestAge().map(d -> d.toMillis()).orElse(null));
        List<Object> destinations = new ArrayList<>();
        for (OutboxBacklog.Destination d : b.destinations()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("aggregateType", d.aggregateType());
            m.put("pending", d.pending());
            m.put("oldestAgeMs", d.oldestAge().toMillis());
            m.put("maxAttempts", d.maxAttempts());
            destinations.add(m);
        }
        out.put("destinations", destinations);
        List<Object> failing = new ArrayList<>();
        for (OutboxBacklog.FailingEvent f : b.failing()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", f.id());
            m.put("messageId", f.messageId());
            m.put("aggregateType", f.aggregateType());
            m.put("aggregateId", f.aggregateId());
            m.put("sequence", f.sequence());
            m.put("eventType", f.eventType());
            m.put("attempts", f.attempts());
            m.put("createdAt", IdemAdmin.text(f.createdAt()));
            m.put("nextAttemptAt", IdemAdmin.text(f.nextAttemptAt()));
            if (showContent) {
                m.put("lastError", f.lastError().orElse(null));
            }
            failing.add(m);
        }
        out.put("failing", failing);
        out.put("asOf", IdemAdmin.text(b.asOf()));
        return out;
    }
}
