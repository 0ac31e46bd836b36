package dev.idem.demo.lab;

/** One way of doing a pattern row's work, and what it exists to show under the row's fault. */
public record Side(String label, Verdict expected) {
    static Side naive(String label) {
        return new Side(label, Verdict.FAILS);
    }

    static Side idempotent(String label) {
        return new Side(label, Verdict.HOLDS);
    }
}
