package dev.idem.demo.payments;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The step boundaries of a payment at which {@code --crash-at} halts the process, in the order a
 * payment reaches them. Each is a moment a real crash (power loss, OOM kill, deploy) can hit.
 */
public enum CrashPoint {
    /** The key is claimed (IN_PROGRESS), nothing else happened. */
    AFTER_CLAIM("after-claim"),
    /** The payment row is committed, its phase is not checkpointed yet. */
    AFTER_PAYMENT_ROW("after-payment-row"),
    /** The gateway charged the card and answered, its phase is not checkpointed yet. */
    AFTER_GATEWAY_CALL("after-gateway-call"),
    /** The charge phase is checkpointed; the payment is not marked paid yet. */
    AFTER_CHECKPOINT("after-checkpoint"),
    /** The response is stored (the record is COMPLETED) and not sent yet. */
    AFTER_COMPLETION("after-completion"),
    /** The response is about to be written to the connection. */
    BEFORE_RESPONSE_WRITTEN("before-response-written");

    private final String flag;

    CrashPoint(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }

    /** @throws IllegalArgumentException naming the value and the allowed ones */
    public static CrashPoint fromFlag(String flag) {
        for (CrashPoint p : values()) {
            if (p.flag.equals(flag)) {
                return p;
            }
        }
        throw new IllegalArgumentException("--crash-at must be one of " + allowed() + ", was '" + flag + "'");
    }

    static String allowed() {
        return Arrays.stream(values()).map(CrashPoint::flag).collect(Collectors.joining(", "));
    }
}
