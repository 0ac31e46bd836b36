package dev.idem.demo.lab;

/** What a scenario exists to show; the verdict compares it with what was counted. */
public enum Expectation {
    LOSES_PAYMENTS("loses payments"),
    DUPLICATES_CHARGES("duplicates charges"),
    /** The charges are exactly once, but the ledger consumer applies some payment events twice. */
    DUPLICATES_LEDGER_ENTRIES("duplicates ledger entries"),
    EXACTLY_ONCE("0 lost, 0 duplicated"),
    /** Exactly once, and every retry after the key's response expired answered 410 {@code key-expired} without running. */
    ANSWERS_EXPIRED("0 duplicated, late retries 410"),
    /** Payments charged and never recorded by the service while their clients stayed away (none charged twice). */
    LEAVES_UNRECORDED("charged, never recorded"),
    /** Every charged payment recorded by the service without its client, and its late retry a replay. */
    COMPLETES_ABANDONED("0 unrecorded, late retries replay");

    private final String label;

    Expectation(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
