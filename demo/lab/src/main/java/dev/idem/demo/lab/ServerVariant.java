package dev.idem.demo.lab;

import java.util.List;

/** How the payments service is built, chosen by its {@code --variant} flag and, for some variants, settings of its own. */
public enum ServerVariant {
    /** Durable store, key claimed before the charge, charge sent with the derived downstream key. */
    CORRECT("correct", "correct"),
    /** Deliberately broken: charges first (with a fresh gateway key), stores the key afterwards. */
    KEY_AFTER_EFFECT("key-after-effect", "key after effect"),
    /** Deliberately broken: the dedup store is in memory (and the gateway key fresh per execution). */
    MEMORY_STORE("memory-store", "in-memory store"),
    /**
     * The correct service with tombstones ({@code idem.tombstones=1h}): a key whose response's retention
     * has passed is still remembered for an hour, and a retry with it is answered 410 {@code key-expired}.
     */
    TOMBSTONES("correct", "tombstones (1 h)", "--idem.tombstones=1h");

    private final String flag;
    private final String label;
    private final List<String> settings;

    ServerVariant(String flag, String label, String... settings) {
        this.flag = flag;
        this.label = label;
        this.settings = List.of(settings);
    }

    public String flag() {
        return flag;
    }

    public String label() {
        return label;
    }

    /** The service's arguments beyond {@code --variant}: the settings that make this variant. */
    public List<String> settings() {
        return settings;
    }

    /** The variant's name in the JSON report: the enum's name in flag spelling (its flag, for a variant with a flag of its own). */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
