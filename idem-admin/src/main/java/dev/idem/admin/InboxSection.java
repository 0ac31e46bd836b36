package dev.idem.admin;

import dev.idem.inbox.InboxOutcome;
import dev.idem.inbox.QuarantinedMessage;
import dev.idem.spi.Arguments;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One inbox consumer's part of {@link IdemAdmin}: a class of its own, so the inbox stays optional. */
final class InboxSection {
    /** A replay of all replays at most this many (the quarantine's oldest failures first); run it again for more. */
    static final int REPLAY_ALL_LIMIT = 1000;

    private final QuarantinedConsumer consumer;

    InboxSection(QuarantinedConsumer consumer) {
        this.consumer = consumer;
    }

    String name() {
        return consumer.consumer();
    }

    Map<String, Object> summary() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("consumer", name());
        m.put("quarantined", consumer.quarantine().list(name(), REPLAY_ALL_LIMIT).size());
        m.put("quarantinedCountedUpTo", REPLAY_ALL_LIMIT);
        return m;
    }

    Map<String, Object> list(int limit, boolean showContent) {
        Arguments.between("limit", limit, 1, REPLAY_ALL_LIMIT);
        List<Object> messages = new ArrayList<>();
        for (QuarantinedMessage q : consumer.quarantine().list(name(), limit)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("messageId", q.messageId());
            m.put("attempts", q.attempts());
            m.put("firstFailure", IdemAdmin.text(q.firstFailure()));
            m.put("lastFailure", IdemAdmin.text(q.lastFailure()));
            m.put("errorClass", q.errorClass());
            m.put("payloadBytes", q.message().payload().length);
            if (showContent) {
                m.put("errorMessage", q.errorMessage().orElse(null));
                m.put("headers", q.headers());
                m.put("payloadBase64", Base64.getEncoder().encodeToString(q.payload()));
            }
            messages.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("consumer", name());
        out.put("quarantined", messages);
        return out;
    }

    Map<String, Object> replay(String messageId) {
        InboxOutcome outcome = consumer.quarantine().replay(name(), messageId, consumer.handler());
        return Map.of("messageId", messageId, "status", outcome.status().name());
    }

    List<Map<String, Object>> replayAll() {
        List<Map<String, Object>> results = new ArrayList<>();
        for (QuarantinedMessage q : consumer.quarantine().list(name(), REPLAY_ALL_LIMIT)) {
            results.add(replay(q.messageId()));
        }
        return results;
    }

    boolean drop(String messageId) {
        return consumer.quarantine().drop(name(), messageId);
    }
}
