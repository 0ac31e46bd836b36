package dev.idem.demo.lab;

/** How a client sends one logical payment and what it does when it gets no answer. */
public enum ClientStrategy {
    /** Send once; whatever happens, never again. */
    AT_MOST_ONCE("at-most-once", KeyUse.NONE, false),
    /** Retry until answered, with no key: every retry is a new request to the server. */
    AT_LEAST_ONCE_NO_KEY("at-least-once, no key", KeyUse.NONE, true),
    /** Retry with a fresh key each time: the classic bug, as good as no key. */
    NEW_KEY_PER_RETRY("new key per retry", KeyUse.NEW_PER_ATTEMPT, true),
    /** One key per logical payment, made when the user pays and reused on every retry. */
    IDEMPOTENT("idempotent (one key)", KeyUse.ONE_PER_PAYMENT, true);

    /** Where the client's keys come from. */
    public enum KeyUse { NONE, NEW_PER_ATTEMPT, ONE_PER_PAYMENT }

    private final String label;
    private final KeyUse keyUse;
    private final boolean retries;

    ClientStrategy(String label, KeyUse keyUse, boolean retries) {
        this.label = label;
        this.keyUse = keyUse;
        this.retries = retries;
    }

    public String label() {
        return label;
    }

    public KeyUse keyUse() {
        return keyUse;
    }

    public boolean retries() {
        return retries;
    }
}
