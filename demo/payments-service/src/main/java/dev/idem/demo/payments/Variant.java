package dev.idem.demo.payments;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How the service is built, chosen by {@code --variant}. Only {@link #CORRECT} is how idem is meant to
 * be used; the other two are <b>deliberately broken</b>, so the lab can show what each mistake costs.
 */
public enum Variant {
    /** Durable store, key claimed before any effect, the charge sent with the derived downstream key. */
    CORRECT("correct", null),
    /** Deliberately broken: charges the gateway first (fresh gateway key per execution), records the key afterwards. */
    KEY_AFTER_EFFECT("key-after-effect",
            "the gateway is charged BEFORE the key is recorded, with a fresh gateway key per execution: a crash in between charges twice"),
    /** Deliberately broken: the dedup store lives in this JVM's heap (and the gateway key is fresh per execution). */
    MEMORY_STORE("memory-store",
            "idempotency keys are kept in memory only, and the gateway gets a fresh key per execution: a restart forgets every key and charges again");

    private final String flag;
    private final String brokenBecause;

    Variant(String flag, String brokenBecause) {
        this.flag = flag;
        this.brokenBecause = brokenBecause;
    }

    public String flag() {
        return flag;
    }

    public boolean deliberatelyBroken() {
        return brokenBecause != null;
    }

    /** Why this variant is broken, for its log line; null for {@link #CORRECT}. */
    public String brokenBecause() {
        return brokenBecause;
    }

    /** @throws IllegalArgumentException naming the value and the allowed ones */
    public static Variant fromFlag(String flag) {
        for (Variant v : values()) {
            if (v.flag.equals(flag)) {
                return v;
            }
        }
        throw new IllegalArgumentException("--variant must be one of " + allowed() + ", was '" + flag + "'");
    }

    static String allowed() {
        return Arrays.stream(values()).map(Variant::flag).collect(Collectors.joining(", "));
    }
}
