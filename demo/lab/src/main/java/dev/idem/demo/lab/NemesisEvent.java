package dev.idem.demo.lab;

/**
 * One line of a fleet's timeline: a fault the nemesis injected, its end, or what the supervisor did.
 *
 * @param atMillis since the fleet's traffic began
 * @param kind     {@code sigkill}, {@code sigstop}, {@code sigcont}, {@code pg-terminate}, {@code pg-blackhole},
 *                 {@code pool-pressure}, {@code gateway-latency}, {@code restart}, {@code exited}
 * @param target   the instance ({@code instance-2}), {@code postgresql} or {@code card-gateway}
 * @param detail   what happened, in words
 */
public record NemesisEvent(long atMillis, String kind, String target, String detail) {
    /** The fault kinds the nemesis draws from (the others are its consequences). */
    static final java.util.List<String> FAULT_KINDS = java.util.List.of("sigkill", "sigstop", "pg-terminate", "pg-blackhole",
            "pool-pressure", "gateway-latency");

    boolean fault() {
        return FAULT_KINDS.contains(kind);
    }
}
