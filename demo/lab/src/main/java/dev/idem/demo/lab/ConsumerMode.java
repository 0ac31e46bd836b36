package dev.idem.demo.lab;

/** How the ledger consumer of a messaging scenario applies payment events. */
public enum ConsumerMode {
    /** Deliberately naive: appends the batch, commits, then commits offsets; a crash in between re-applies the batch. */
    NO_INBOX("no-inbox", "no inbox: append, commit, offsets"),
    /** idem's inbox claims each message id in the ledger's transaction; offsets are committed after it. */
    INBOX("inbox", "idem inbox, offsets after commit");

    private final String flag;
    private final String label;

    ConsumerMode(String flag, String label) {
        this.flag = flag;
        this.label = label;
    }

    /** The ledger consumer's {@code --mode} value. */
    public String flag() {
        return flag;
    }

    public String label() {
        return label;
    }
}
