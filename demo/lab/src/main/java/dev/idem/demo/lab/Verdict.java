package dev.idem.demo.lab;

/** What one side of a pattern row exists to show. */
public enum Verdict {
    /** The naive side: some items end up wrong in the sink. */
    FAILS("fails"),
    /** The idempotent side: every item is in the sink exactly as it should be. */
    HOLDS("holds");

    private final String label;

    Verdict(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
