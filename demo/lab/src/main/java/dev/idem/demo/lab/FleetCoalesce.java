package dev.idem.demo.lab;

import java.util.Arrays;
import java.util.Locale;

/**
 * Which fleet instances run the JDBC store with coalesced commits ({@code --coalesce} of the payments
 * service). PostgreSQL's default is off; {@link #MIXED} forces it on for the first instance only, as a
 * rolling configuration change would leave a fleet, so both write paths share the keys under the nemesis.
 */
public enum FleetCoalesce {
    ON, OFF, MIXED;

    /** {@code on}, {@code off} or {@code mixed}. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException naming the allowed values */
    public static FleetCoalesce fromFlag(String flag) {
        return Arrays.stream(values()).filter(v -> v.flag().equals(flag)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--fleet-coalesce must be on, off or mixed, was '" + flag + "'"));
    }

    /** The service's {@code --coalesce} value for the instance at this index (0-based). */
    String serviceFlag(int index) {
        return switch (this) {
            case ON -> "on";
            case OFF -> "off";
            case MIXED -> index == 0 ? "on" : "dialect";
        };
    }
}
