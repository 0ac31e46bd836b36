package dev.idem.demo.proxy;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A server behind the proxy, with faults of its own on top of the proxy's: the probability that one of
 * its responses is lost, and a delay before each of its responses.
 *
 * @param host         its host
 * @param port         its port, 1-65535
 * @param dropResponse probability 0-1 of losing one of its responses
 * @param delay        held before each of its responses is passed on
 */
public record Upstream(String host, int port, double dropResponse, Duration delay) {
    public Upstream {
        Objects.requireNonNull(host, "upstream host is null");
        Objects.requireNonNull(delay, "upstream delay is null");
        FaultProxy.Builder.checkPort("upstream port", port, false);
        if (!(dropResponse >= 0 && dropResponse <= 1)) {
            throw new IllegalArgumentException("an upstream's drop-response must be a probability 0-1, was " + dropResponse);
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException("an upstream's delay must not be negative, was " + delay);
        }
    }

    /**
     * {@code host:port}, optionally followed by {@code ;drop-response=P} and {@code ;delay-ms=N}, as the
     * proxy's {@code --upstream} takes it.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Upstream parse(String text) {
        String[] parts = text.trim().split(";");
        int colon = parts[0].lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--upstream must be host:port[;drop-response=P][;delay-ms=N], was '" + text + "'");
        }
        int port;
        try {
            port = Integer.parseInt(parts[0].substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--upstream's port must be a number, was '" + parts[0].substring(colon + 1) + "'");
        }
        double drop = 0;
        Duration delay = Duration.ZERO;
        for (int i = 1; i < parts.length; i++) {
            String[] option = parts[i].split("=", 2);
            String name = option[0].trim().toLowerCase(Locale.ROOT);
            String value = option.length == 2 ? option[1].trim() : "";
            try {
                switch (name) {
                    case "drop-response" -> drop = Double.parseDouble(value);
                    case "delay-ms" -> delay = Duration.ofMillis(Long.parseLong(value));
                    default -> throw new IllegalArgumentException("unknown upstream option '" + name + "' (drop-response, delay-ms)");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--upstream's " + name + " must be a number, was '" + value + "'");
            }
        }
        return new Upstream(parts[0].substring(0, colon), port, drop, delay);
    }

    @Override
    public String toString() {
        return host + ":" + port + (dropResponse > 0 ? ";drop-response=" + dropResponse : "")
                + (delay.isZero() ? "" : ";delay-ms=" + delay.toMillis());
    }
}
