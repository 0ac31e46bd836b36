package dev.idem.inbox;

/** The rules for the names the inbox stores: consumer names and message ids. */
final class InboxNames {
    private InboxNames() {
    }

    static String checkConsumer(String consumer) {
        if (consumer == null || consumer.isEmpty() || consumer.length() > 200) {
            throw new IllegalArgumentException("consumer name must have 1-200 characters, was "
                    + (consumer == null ? "null" : consumer.length() + " characters"));
        }
        for (int i = 0; i < consumer.length(); i++) {
            char ch = consumer.charAt(i);
            if (ch < 0x21 || ch > 0x7e) {
                throw new IllegalArgumentException("consumer name must be visible ASCII (no spaces), has another character at position " + i);
            }
        }
        return consumer;
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
