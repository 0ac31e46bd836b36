package dev.idem.jdbc.internal;

/**
 * The inbox's rule for consumer names, in one place: the inbox checks it on every call, and the broker
 * consumers check it where the name is set, so that the error names the setting that was wrong.
 */
public final class Names {
    private Names() {
    }

    /**
     * 1–200 visible ASCII characters (no spaces).
     *
     * @param what the setting named in the error, e.g. {@code consumerName}
     */
    public static String checkConsumer(String consumer, String what) {
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
}
