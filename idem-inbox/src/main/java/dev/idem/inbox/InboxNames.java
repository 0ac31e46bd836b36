package dev.idem.inbox;

/** The rules for the names the inbox stores: consumer names and message ids. */
final class InboxNames {
    private InboxNames() {
    }

    /** The consumer-name rule for the inbox's own calls, which name the argument "consumer name". */
    static String checkConsumer(String consumer) {
        return checkConsumer(consumer, "consumer name");
    }

    /**
     * The one consumer-name rule: 1–200 visible ASCII characters (no spaces). The broker consumers'
     * builders and the Spring listener check it where the name is set ({@link Inbox#checkConsumerName}),
     * so that the error names the setting that was wrong.
     *
     * @param what the setting named in the error, e.g. {@code consumerName}
     */
    static String checkConsumer(String consumer, String what) {
        if (consumer == null || consumer.isEmpty() || consumer.length() > 200) {
            throw new IllegalArgumentException(what + " must have 1-200 characters, was "
                    + (consumer == null ? "null" : consumer.length() + " characters"));
        }
        for (int i = 0; i < consumer.length(); i++) {
            char ch = consumer.charAt(i);
            if (ch < 0x21 || ch > 0x7e) {
                throw new IllegalArgumentException(what + " must be visible ASCII (no spaces), has another character at position " + i);
            }
        }
        return consumer;
    }

    /**
     * 1–255 UTF-16 units of well-formed text without control characters; the message never quotes
     * the id. Every id the inbox accepts is stored exactly as given on each database: a lone
     * (unpaired) surrogate is not a character, and the drivers would write it as {@code ?}, turning
     * distinct ids into one.
     */
    static String checkMessageId(String id) {
        if (id == null || id.isEmpty() || id.length() > 255) {
            throw new IllegalArgumentException("message id must have 1-255 characters, was "
                    + (id == null ? "null" : id.length() + " characters"));
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException("message id has a control character at position " + i);
            }
            if (Character.isHighSurrogate(c) && i + 1 < id.length() && Character.isLowSurrogate(id.charAt(i + 1))) {
                i++;  // a proper pair: one supplementary character
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("message id has an unpaired surrogate at position " + i
                        + "; it must be well-formed UTF-16 (a character outside the Basic Multilingual Plane is a high surrogate followed by a low one)");
            }
        }
        return id;
    }
}
