package dev.idem.demo.lab;

/** How the payments service is built, chosen by its {@code --variant} flag. */
public enum ServerVariant {
    /** Durable store, key claimed before the charge, charge sent with the derived downstream key. */
    CORRECT("correct", "correct"),
    /** Deliberately broken: charges first (with a fresh gateway key), stores the key afterwards. */
    KEY_AFTER_EFFECT("key-after-effect", "key after effect"),
    /** Deliberately broken: the dedup store is in memory (and the gateway key fresh per execution). */
    MEMORY_STORE("memory-store", "in-memory store");

    private final String flag;
    private final String label;

    ServerVariant(String flag, String label) {
        this.flag = flag;
        this.label = label;
    }

    public String flag() {
        return flag;
    }

    public String label() {
        return label;
    }
}
