package dev.idem.demo.ledger;

import picocli.CommandLine;

/** How the consumer keeps a redelivered record from being written twice: with the inbox, or not at all. */
enum Mode {
    /** {@code IdempotentKafkaConsumer}: the claim and the ledger row commit together; a redelivery is a duplicate. */
    INBOX("inbox"),
    /** A plain poll loop with no deduplication: the broken baseline the demo compares against. */
    NO_INBOX("no-inbox");

    private final String flag;

    Mode(String flag) {
        this.flag = flag;
    }

    /** As on the command line and in {@code GET /health}: {@code inbox} or {@code no-inbox}. */
    String flag() {
        return flag;
    }

    @Override
    public String toString() {
        return flag;
    }

    /** Reads {@code --mode}; picocli names the option in its error message. */
    static final class Converter implements CommandLine.ITypeConverter<Mode> {
        @Override
        public Mode convert(String value) {
            for (Mode mode : values()) {
                if (mode.flag.equals(value)) {
                    return mode;
                }
            }
            throw new CommandLine.TypeConversionException("expected inbox or no-inbox but was '" + value + "'");
        }
    }
}
