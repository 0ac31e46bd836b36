package dev.idem.client.internal;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reads {@code Retry-After} (RFC 9110 §10.2.3): delta-seconds or an HTTP-date (IMF-fixdate). A
 * value that is neither is ignored, so the client falls back to its own backoff instead of failing
 * on a server's typo. A date in the past means "now".
 */
public final class RetryAfter {
    public static final String HEADER = "Retry-After";

    private RetryAfter() {
    }

    public static Optional<Duration> from(HttpHeaders headers, Instant now) {
        return headers.firstValue(HEADER).flatMap(value -> parse(value, now));
    }

    public static Optional<Duration> parse(String value, Instant now) {
        String v = value.trim();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (allDigits(v)) {
            // Absurdly long numbers are clamped rather than rejected: the deadline caps them anyway.
            if (v.length() > 12) {
                return Optional.of(Duration.ofSeconds(999_999_999_999L));
            }
            return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(now, at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static boolean allDigits(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
