package dev.idem.inbox;

import dev.idem.jdbc.internal.Names;

/** The rules for the names the inbox stores: consumer names and message ids. */
final class InboxNames {
    private InboxNames() {
    }

    /** The one consumer-name rule, shared with the broker consumers' builders. */
    static String checkConsumer(String consumer) {
        return Names.checkConsumer(consumer, "consumer name");
    }

    /** 1–255 characters without control characters; the message never quotes the id. */
    static String checkMessageId(String id) {
        if (id == null || id.isEmpty() || id.length() > 255) {
            throw new IllegalArgumentException("message id must have 1-255 characters, was "
                    + (id == null ? "null" : id.length() + " characters"));
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                throw new IllegalArgumentException("message id has a control character at position " + i);
            }
        }
        return id;
    }
}
