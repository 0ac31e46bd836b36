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
    TOMBSTONES("correct", "tombstones (1 h)", "--idem.tombstones=1h"),
    /**
     * The correct service with its completer switched off ({@code idem.completer.enabled=false}, as the
     * service has it by default, said here so that the row does not depend on that default): an
     * operation whose owner died is finished only by its client's retry.
     */
    NO_COMPLETER("correct", "no completer", "--idem.completer.enabled=false"),
    /**
     * The correct service with its completer on and quick ({@code idem.completer.delay=1s}, polled every
     * half second): an operation whose owner died and whose client did not come back is finished by the
     * service itself, from the request it stored with the claim.
     */
    COMPLETER("correct", "completer (1 s)", "--idem.completer.enabled=true", "--idem.completer.delay=1s",
            "--idem.completer.poll-interval=500ms");

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
