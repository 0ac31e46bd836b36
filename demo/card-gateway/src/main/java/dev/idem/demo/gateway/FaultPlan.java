package dev.idem.demo.gateway;

import java.util.Locale;

/**
 * Which faults one request suffers, from a spec such as {@code latency=200,fail-after=0.3}.
 *
 * <ul>
 * <li>{@code latency=<ms>}: wait before charging;</li>
 * <li>{@code latency-after=<ms>}: wait after the charge committed, before answering (a window in
 *     which the charge exists but the caller does not know it yet);</li>
 * <li>{@code fail-before[=p]}: answer 503 without charging;</li>
 * <li>{@code fail-after[=p]}: the charge commits, then the answer is a 500;</li>
 * <li>{@code reset-after[=p]}: the charge commits, then the connection is closed with no answer;</li>
 * <li>{@code none}: no fault (a header {@code X-Fault: none} switches off the startup faults).</li>
 * </ul>
 * A probability {@code p} is 0–1; without one the fault always happens.
 */
public record FaultPlan(long latencyMillis, long latencyAfterMillis, double failBefore, double failAfter, double resetAfter) {
    public static final FaultPlan NONE = new FaultPlan(0, 0, 0, 0, 0);

    public FaultPlan {
        nonNegative("latency", latencyMillis);
        nonNegative("latency-after", latencyAfterMillis);
        probability("fail-before", failBefore);
        probability("fail-after", failAfter);
        probability("reset-after", resetAfter);
    }

    /** @throws IllegalArgumentException naming the token that is not understood */
    public static FaultPlan parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        long latency = 0;
        long latencyAfter = 0;
        double failBefore = 0;
        double failAfter = 0;
        double resetAfter = 0;
        for (String token : spec.split("[,\\s]+")) {
            if (token.isEmpty()) {
                continue;
            }
            int eq = token.indexOf('=');
            String name = (eq < 0 ? token : token.substring(0, eq)).toLowerCase(Locale.ROOT);
            String value = eq < 0 ? null : token.substring(eq + 1);
            switch (name) {
                case "none" -> {
                    if (value != null) {
                        throw new IllegalArgumentException("fault 'none' takes no value");
                    }
                }
                case "latency" -> latency = millis(name, value);
                case "latency-after" -> latencyAfter = millis(name, value);
                case "fail-before" -> failBefore = chance(name, value);
                case "fail-after" -> failAfter = chance(name, value);
                case "reset-after" -> resetAfter = chance(name, value);
                default -> throw new IllegalArgumentException("unknown fault '" + name
                        + "'; known: latency=<ms>, latency-after=<ms>, fail-before[=p], fail-after[=p], reset-after[=p], none");
            }
        }
        return new FaultPlan(latency, latencyAfter, failBefore, failAfter, resetAfter);
    }

    private static long millis(String name, String value) {
        if (value == null) {
            throw new IllegalArgumentException("fault '" + name + "' needs a value in milliseconds, e.g. " + name + "=200");
        }
        try {
            long ms = Long.parseLong(value);
            if (ms < 0 || ms > 60_000) {
                throw new IllegalArgumentException("fault '" + name + "' must be 0-60000 ms, was " + value);
            }
            return ms;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault '" + name + "' must be a whole number of milliseconds, was '" + value + "'");
        }
    }

    private static double chance(String name, String value) {
        if (value == null) {
            return 1.0;
        }
        try {
            double p = Double.parseDouble(value);
            probability(name, p);
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault '" + name + "' takes a probability 0-1, was '" + value + "'");
        }
    }

    private static void nonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
    }

    private static void probability(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("fault '" + name + "' takes a probability 0-1, was " + p);
        }
    }

    /** The spec this plan parses from, e.g. {@code latency=200,fail-after=0.3}; {@code none} when empty. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        if (latencyMillis > 0) {
            s.append(",latency=").append(latencyMillis);
        }
        if (latencyAfterMillis > 0) {
            s.append(",latency-after=").append(latencyAfterMillis);
        }
        appendChance(s, "fail-before", failBefore);
        appendChance(s, "fail-after", failAfter);
        appendChance(s, "reset-after", resetAfter);
        return s.length() == 0 ? "none" : s.substring(1);
    }

    private static void appendChance(StringBuilder s, String name, double p) {
        if (p >= 1) {
            s.append(',').append(name);
        } else if (p > 0) {
            s.append(',').append(name).append('=').append(p);
        }
    }
}
