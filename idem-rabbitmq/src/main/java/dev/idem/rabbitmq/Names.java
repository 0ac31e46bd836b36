package dev.idem.rabbitmq;

/** The inbox's rules for consumer names, checked where the name is set so the error names the setter. */
final class Names {
    private Names() {
    }

    static String checkConsumer(String consumer) {
        if (consumer == null || consumer.isEmpty() || consumer.length() > 200) {
            throw new IllegalArgumentException("consumerName must have 1-200 characters, was "
                    + (consumer == null ? "null" : consumer.length() + " characters"));
        }
        for (int i = 0; i < consumer.length(); i++) {
            char ch = consumer.charAt(i);
            if (ch < 0x21 || ch > 0x7e) {
                throw new IllegalArgumentException("consumerName must be visible ASCII (no spaces), has another character at position " + i);
            }
        }
        return consumer;
    }
}
