package dev.idem.spring.internal;

import dev.idem.Idem;
import dev.idem.InFlightPolicy;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.Idempotent;
import java.time.Duration;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;

/**
 * The engine settings an annotation overrides: reads the ones it may set ({@code lease}, {@code retention},
 * {@code inFlight}, {@code maxWait}) and derives an {@link Idem} with them: the one validator behind
 * {@code @Idempotent} endpoints and {@code @IdempotentMethod} methods. Every message names the
 * annotation and the method ({@code where}).
 */
final class EngineOverrides {
    private final IdemProperties properties;
    private final PropertyResolver placeholders;

    EngineOverrides(IdemProperties properties, PropertyResolver placeholders) {
        this.properties = properties;
        this.placeholders = placeholders;
    }

    /** The settings one annotation gives, parsed and checked; {@code null} fields mean "the engine's". */
    record Settings(Duration lease, Duration retention, InFlightPolicy inFlight) {
        boolean changesNothing() {
            return lease == null && retention == null && inFlight == null;
        }
    }

    /**
     * Parses the annotation's texts.
     *
     * @param where e.g. {@code "@Idempotent on com.acme.Orders#place"}
     * @throws IllegalStateException naming {@code where} and the attribute if one does not parse or fit
     */
    Settings settings(String lease, String retention, Idempotent.InFlight inFlight, String maxWait, String where) {
        Duration parsedLease = duration(lease, "lease", where);
        Duration parsedRetention = duration(retention, "retention", where);
        Duration parsedMaxWait = duration(maxWait, "maxWait", where);
        return new Settings(parsedLease, parsedRetention, inFlight(inFlight, parsedMaxWait, where));
    }

    /** {@code base} with the settings applied, or {@code base} itself when they change nothing. */
    static Idem variant(Idem base, Settings settings, String where) {
        if (settings.changesNothing()) {
            return base;
        }
        try {
            Idem.Builder builder = base.toBuilder();
            if (settings.lease() != null) {
                builder.lease(settings.lease());
            }
            if (settings.retention() != null) {
                builder.retention(settings.retention());
            }
            if (settings.inFlight() != null) {
                builder.inFlightPolicy(settings.inFlight());
            }
            return builder.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException(where + ": " + e.getMessage(), e);
        }
    }

    private InFlightPolicy inFlight(Idempotent.InFlight mode, Duration maxWait, String where) {
        switch (mode) {
            case REJECT:
                if (maxWait != null) {
                    throw new IllegalStateException(where + ": maxWait is set but inFlight is REJECT, which never waits");
                }
                return InFlightPolicy.reject();
            case WAIT:
                return InFlightPolicy.waitUpTo(maxWait != null ? maxWait : properties.getMaxWait());
            default:
                if (maxWait == null) {
                    return null;
                }
                if (properties.getInFlight() != IdemProperties.InFlight.WAIT) {
                    throw new IllegalStateException(where + ": maxWait is set but the in-flight policy"
                            + " is idem.in-flight=reject, which never waits; add inFlight = WAIT");
                }
                return InFlightPolicy.waitUpTo(maxWait);
        }
    }

    /** A Spring Boot duration string (placeholders resolved), or null when empty. */
    Duration duration(String text, String attribute, String where) {
        if (text.isEmpty()) {
            return null;
        }
        Duration value;
        try {
            value = DurationStyle.detectAndParse(placeholders.resolveRequiredPlaceholders(text).trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + ": " + attribute + " '" + text
                    + "' is not a duration (examples: 30s, 5m, 24h, PT1H)", e);
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalStateException(where + ": " + attribute + " must be positive, was '" + text + "'");
        }
        return value;
    }
}
